// The game's language packs for tests under Node (the page gets its pack from the server).
import fs from 'node:fs';

import { Translator } from '../../src/game2048/web/static/js/i18n.js';

export const PACK_DIR = new URL('../../src/game2048/web/static/js/i18n/', import.meta.url);

export function pack(lang) {
  return { lang, ...JSON.parse(fs.readFileSync(new URL(`${lang}.json`, PACK_DIR), 'utf8')) };
}

export function translator(lang = 'en') {
  return new Translator(pack(lang));
}
