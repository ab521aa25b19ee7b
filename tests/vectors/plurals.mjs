// Regenerate plurals.json, the plural categories the browser's Intl.PluralRules gives whole numbers
// in every language the game has a pack for; the server's rules (game2048.server.site.i18n) must agree.
//
//     node tests/vectors/plurals.mjs > tests/vectors/plurals.json
import { LANGUAGES, pack } from '../js/packs.mjs';

const NUMBERS = [0, 1, 2, 3, 4, 5, 10, 11, 12, 14, 20, 21, 22, 25, 100, 101, 111, 112, 1000, 1001];
const line = (code) => {
  const rules = new Intl.PluralRules(pack(code).locale);
  return JSON.stringify(Object.fromEntries(NUMBERS.map((n) => [String(n), rules.select(n)])), null, 0)
    .replaceAll('","', '", "').replaceAll('":"', '": "');
};
const about = 'CLDR plural categories of whole numbers, as Intl.PluralRules gives them; the server '
  + '(game2048.server.site.i18n.plural_category) must agree';
process.stdout.write(`{\n "about": "${about}",\n "categories": {\n`
  + LANGUAGES.map((code) => `  "${code}": ${line(code)}`).join(',\n') + '\n }\n}\n');
