// The game's language packs for tests under Node (the page gets its pack from the server).
import fs from 'node:fs';

import { Translator } from '../../src/game2048/web/static/js/i18n.js';

export const PACK_DIR = new URL('../../src/game2048/web/static/js/i18n/', import.meta.url);
/** Every language the game has a pack for (the server's list, game2048.server.site.i18n.LANGUAGES, is bound to these files). */
export const LANGUAGES = fs.readdirSync(PACK_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();

export function pack(lang) {
  return { lang, ...JSON.parse(fs.readFileSync(new URL(`${lang}.json`, PACK_DIR), 'utf8')) };
}

export function translator(lang = 'en') {
  return new Translator(pack(lang));
}
