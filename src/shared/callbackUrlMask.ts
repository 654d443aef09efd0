// Query parameters whose values are masked: names that say they carry a credential (`token`, `api_key`,
// `X-Amz-Signature`, `client_secret`, `passwd`, ...), matched anywhere in the name and in any case. Masking a
// harmless parameter costs nothing; showing a secret one cannot be undone.
const SECRET_PARAMETER = /token|key|secret|pass|pwd|sig|auth|session|credential|jwt|cookie/i;

/** The query (without its `?`) with the value of every secret-looking parameter replaced by `***`. */
function maskQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return SECRET_PARAMETER.test(name) ? `${pair.slice(0, eq)}=***` : pair;
    })
    .join('&');
}

/**
 * The URL for logs, errors, API answers and web pages: the password replaced (`login:***@`), a user name without
 * a password replaced whole (`***@`: it is often the secret itself, `https://sk_live_...@host/`), and the values
 * of secret-looking query parameters replaced (`?token=***`). A URL with nothing to hide comes back as given.
 * Shared: callbacks/ logs it, capabilities answer with it, and http/'s error handler echoes a refused one masked.
 */
export function maskCallbackUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const [head, ...rest] = value.replace(/\/\/[^/@]*@/, '//***@').split('?');
    return rest.length === 0 ? head! : `${head}?${maskQuery(rest.join('?'))}`;
  }
  const query = url.search.slice(1);
  const maskedQuery = maskQuery(query);
  if (!url.password && !url.username && maskedQuery === query) return value;
  if (url.password) url.password = '***';
  else if (url.username) url.username = '***';
  // Set as written: only `***` is new, and the search setter keeps the rest of an encoded query as it is.
  if (maskedQuery !== query) url.search = `?${maskedQuery}`;
  return url.toString();
}
