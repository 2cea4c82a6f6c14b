// Spoofing checks on internationalised hostnames, the way browsers decide whether to show a
// Unicode name or its punycode (UTS #39 "Highly Restrictive", as Chromium's IDN spoof checker
// starts from): `pаypal.com` with a Cyrillic а would be shown by no browser as Unicode, and a
// certificate for it would serve only phishing. Decision (docs/api-decisions.md): refuse, rather
// than accept with a flag — a vendor cannot usefully act on a flag, and nobody legitimately needs
// a label that mixes scripts outside the CJK combinations below.

/** Scripts told apart; a character in none of them (and not Common/Inherited) counts as "Other". */
const SCRIPTS = ['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Devanagari', 'Bengali',
  'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Tibetan',
  'Myanmar', 'Georgian', 'Hangul', 'Ethiopic', 'Cherokee', 'Khmer', 'Mongolian', 'Hiragana', 'Katakana', 'Bopomofo', 'Han'] as const;
const matchers = SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, 'u')] as const);
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;

/** UTS #39 Highly Restrictive: one script, or Latin with one of the CJK writing combinations. */
const ALLOWED_COMBINATIONS: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

export function scriptsOf(label: string): Set<string> {
  const found = new Set<string>();
  for (const ch of label) {
    if (NEUTRAL.test(ch)) continue;
    found.add(matchers.find(([, re]) => re.test(ch))?.[0] ?? 'Other');
  }
  return found;
}

export function isMixedScript(label: string): boolean {
  const scripts = scriptsOf(label);
  if (scripts.size <= 1) return false;
  return !ALLOWED_COMBINATIONS.some((allowed) => [...scripts].every((s) => allowed.has(s)));
}

// Cyrillic letters that look like Latin ones (Chromium's whole-script-confusable set for Cyrillic).
const CYRILLIC_LATIN_LOOKALIKES = /^[аысԁеԍһіюјӏорԗԛѕԝхуъьҽпгѵѡ]+$/u;
// Top-level domains of countries writing in Cyrillic, where an all-Cyrillic label is expected.
const CYRILLIC_TLDS = new Set(['bg', 'by', 'kz', 'kg', 'mk', 'mn', 'ru', 'rs', 'su', 'tj', 'ua', 'uz', 'xn--p1ai', 'xn--90ais', 'xn--j1amh', 'xn--90a3ac', 'xn--d1alf', 'xn--l1acc', 'xn--80ao21a', 'xn--90ae']);

/** An all-Cyrillic label spelt only with Latin look-alikes (`аррӏе`), outside a Cyrillic TLD. */
export function isWholeScriptConfusable(label: string, tld: string): boolean {
  return !CYRILLIC_TLDS.has(tld) && CYRILLIC_LATIN_LOOKALIKES.test(label.replace(/[-0-9]/g, '') || '-');
}
