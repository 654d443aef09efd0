import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** A pushState navigation happened (as opposed to the first load): pages move focus to their heading. */
let navigated = false;

/** Goes to another page of the application without reloading it. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  navigated = true;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
  window.scrollTo(0, 0);
}

export function wasNavigated(): boolean {
  return navigated;
}

export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
}

/** The current location; re-renders on navigation and on the browser's back and forward buttons. */
export function useLocation(): Location {
  const [href, setHref] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => {
      navigated = true;
      setHref(location.pathname + location.search);
    };
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  const [path = '/', search = ''] = href.split('?');
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(search) };
}

/** Matches a path against a pattern such as `/app/messages/:uuid`; returns the parameters or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i]!;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(h);
    else if (w !== h) return undefined;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children: ComponentChildren };

/** A real link (opens in a new tab with a modifier key) that navigates in place on a plain click. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
