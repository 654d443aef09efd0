import { useEffect, useState } from 'preact/hooks';
import { t } from '../shared/i18n/index.js';
import { admin } from './session.js';

/**
 * Account names for the console's tables, which get account ids from the API: each id read once
 * (`GET /admin/v1/accounts/{id}`) and kept for the tab, so that a table of 50 holds shows each account by name.
 */
const names = new Map<number, Promise<string | null>>();
/** The names already read, for what needs one at once (a table sorted by account). */
const known = new Map<number, string>();

function nameOf(id: number): Promise<string | null> {
  let name = names.get(id);
  if (!name) {
    name = admin.get('/admin/v1/accounts/{id}', { params: { id } }).then(
      (account) => {
        known.set(id, account.name);
        return account.name;
      },
      () => {
        names.delete(id);
        return null;
      },
    );
    names.set(id, name);
  }
  return name;
}

/** Forgets what is known of an account's name (after a rename). */
export function forgetAccountName(id: number): void {
  names.delete(id);
  known.delete(id);
}

/** What a column of accounts sorts by: the account's label as shown ("Shop (#3)", or "account #3" until read). */
export const accountSortKey = (id: number): string => accountLabel(id, known.get(id));

/** The name of account `id`, undefined until known, null when there is no such account. */
export function useAccountName(id: number | null | undefined): string | null | undefined {
  const [name, setName] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    setName(undefined);
    if (id === null || id === undefined || !Number.isSafeInteger(id) || id < 1) return;
    let current = true;
    void nameOf(id).then((n) => current && setName(n));
    return () => {
      current = false;
    };
  }, [id]);
  return name;
}

/** "Shop (#3)", or "account #3" while the name is read or when it cannot be. */
export const accountLabel = (id: number, name: string | null | undefined): string =>
  name ? t('account.nameWithId', { name, id }) : t('account.unknownId', { id });

/** A link to account `id`'s page, named "Shop (#3)". */
export function AccountLink({ id }: { id: number }) {
  const name = useAccountName(id);
  return (
    <a href={`/admin/accounts/${id}`} data-testid="account-link">
      {accountLabel(id, name)}
    </a>
  );
}
