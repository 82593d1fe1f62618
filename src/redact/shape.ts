/**
 * Shape checks that keep ordinary text intact: a value assigned to `token:`
 * or said to be "the password" is a secret only when it looks like one (random,
 * or at least not a word, an identifier, a path or a placeholder).
 */

/** Bits of entropy per character (Shannon), over the characters of `text`. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Character classes present: lower, upper, digit, other. */
function classes(text: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(text)).length;
}

/**
 * Words joined by `-`, `_` or `.` (`oauth2-client-credentials-flow`,
 * `refresh-token-v2-rotation`, `user_profile_v2_cache`): each part a word with
 * a vowel, maybe with a version number. Names people give things, not keys.
 */
export function isWordIdentifier(value: string): boolean {
  const parts = value.split(/[-_.]+/).filter(Boolean);
  if (parts.length < 2) return false;
  return parts.every(
    (part) => /^v?\d{1,4}$/i.test(part) || (/^[a-z]+\d{0,2}$/i.test(part) && /[aeiouy]/i.test(part) && !/[a-z][A-Z]{2}/.test(part)),
  );
}

/** Random-looking: a long token mixing letters and digits with high entropy, not a word, path or placeholder. */
export function looksRandom(secret: string, minLength = 16): boolean {
  if (secret.length < minLength) return false;
  if (isPlaceholder(secret) || isWordIdentifier(secret)) return false;
  if (!/[0-9]/.test(secret) || !/[A-Za-z]/.test(secret)) return false;
  // Paths and dotted names (`src/app/config.ts`, `process.env.API_KEY`) are code, not secrets.
  if (/^[\w.-]*\/[\w./-]*$/.test(secret) && /[a-z]{4,}/.test(secret)) return false;
  if (/^[a-z_$][\w$]*(\.[a-z_$][\w$]*)+$/i.test(secret)) return false;
  // Hex has 16 symbols (4 bits at most): a random 32-character key can score near 3.2.
  return shannonEntropy(secret) >= (/^[0-9a-f]+$/i.test(secret) ? 2.8 : 3.3) && classes(secret) >= 2;
}

/** Values that stand for a secret without being one: `<your-key>`, `${API_KEY}`, `xxxx`, `changeme`… */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v.length === 0) return true;
  if (v.includes('[REDACTED')) return true;
  if (/^(<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%\(?\w*\)?s|\$[A-Z_][A-Z0-9_]*|\*+|x+|X+|\.+|…|-+|_+|#+)$/.test(v)) return true;
  if (
    new RegExp(
      '^(none|null|nil|undefined|true|false|string|number|boolean|any|unknown|str|int|bytes|secret|password|passwd|token' +
        String.raw`|redacted|example|your[-_ ]?\w*|changeme|placeholder|todo|tbd|n\/a|empty|required|optional|hidden|masked)$`,
      'i',
    ).test(v)
  )
    return true;
  return false;
}

/**
 * A password-like value in an assignment: quoted values are taken as they are
 * (unless placeholders or references); unquoted ones must not look like code
 * (`string`, `req.body.password`, `getPassword()`, `$PASSWORD`, an identifier).
 */
export function acceptAssignedValue(value: string): boolean {
  if (isPlaceholder(value)) return false;
  const quoted = /^(["'`]).*\1$/s.test(value);
  const inner = quoted ? value.slice(1, -1) : value;
  if (isPlaceholder(inner)) return false;
  if (/^\$\{?\w+\}?$/.test(inner) || /^(process\.env|os\.environ|os\.getenv|env)\b/.test(inner)) return false;
  if (
    /^[\w.$]+\(.*\)?$/.test(inner) ||
    /^(self|this|req|request|args|opts|options|config|cfg|params|input|data|form|user|ctx|settings)[.[]/i.test(inner)
  )
    return false;
  if (/^[a-z_$][\w$]*(\.[a-z_$][\w$]*)+$/i.test(inner)) return false; // a property path
  // A quoted phrase of plain words is prose (`1Password: "Ledgerly Eng" vault`), not a password.
  if (quoted) return inner.length >= 4 && !isWordIdentifier(inner) && !/^[A-Za-z]+(?: [A-Za-z]+)+$/.test(inner);
  // Unquoted, in prose or code: `<your password>`, `$PASSWORD`, `%s`, `*****` are not values.
  if (/^[<$%{*]/.test(inner) || isWordIdentifier(inner)) return false;
  if (/^\.{0,2}\/[\w./-]*$/.test(inner)) return false; // a path: `DB_PASSWORD_FILE=/run/secrets/db`
  if (/^[A-Za-z_-]+$/.test(inner)) {
    // Words only: prose (`password: invalid-credentials`) or an identifier (`password: userPassword`),
    // unless one long flat word, like a generated passphrase.
    return inner.length >= 12 && /^[A-Za-z]+$/.test(inner) && !/[a-z][A-Z]/.test(inner);
  }
  return inner.length >= 4;
}

/** Words that follow "the password is" in prose without being a password. */
const PROSE_NOT_A_VALUE = new RegExp(
  '^(a|an|the|not|now|still|also|only|set|stored|saved|kept|read|required|wrong|incorrect|invalid|correct|valid|expired' +
    '|missing|empty|same|different|rotated|reset|changed|hashed|encrypted|in|on|at|from|for|to|used|shown|sent|given' +
    '|masked|hidden|long|short|too|very|unknown|known|weak|strong|secure|safe|fine|ok|okay)$',
  'i',
);

/**
 * A value stated in prose ("the wifi password is hunter2!"): one token that is
 * not a common word, with a digit or a symbol in it, or long and mixed-case.
 */
export function acceptProseValue(value: string): boolean {
  if (value.length < 6 || isPlaceholder(value) || PROSE_NOT_A_VALUE.test(value)) return false;
  if (isWordIdentifier(value) || /^https?:\/\//.test(value) || /^[a-z_$][\w$]*(\.[a-z_$][\w$]*)+$/i.test(value)) return false;
  if (/^\d+$/.test(value) && value.length < 8) return false;
  return /[0-9]/.test(value) || /[^A-Za-z0-9]/.test(value) || (value.length >= 12 && /[a-z]/.test(value) && /[A-Z]/.test(value));
}
