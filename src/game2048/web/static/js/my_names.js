// Your names, on My games (/me): the names this browser holds, each with its key shown as a
// recovery code; a code from another browser takes its names back (POST /api/names/recover);
// a name can be let go (POST /api/names/release). The keys live in this browser (name_keys.js).
import { NameKeys } from './name_keys.js';

// a name inside a sentence keeps its own direction (a Hebrew name in English words, and back)
const isolate = (name) => `\u2068${name}\u2069`;
const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (all, key) => (key in vars ? vars[key] : all));

/**
 * Draw the names of `keys` into the page `doc` and wire its recovery form; `say(text)` reports
 * in the page's status line, `confirm(text)` asks before a name is let go.
 */
export function myNames(doc, { keys, api, words, lang, say, store, confirm }) {
  const list = doc.getElementById('me-names');
  const form = doc.getElementById('me-recover');
  const field = doc.getElementById('me-code');
  const failed = (e) => words[e?.status === 429 ? 'me_busy' : 'me_failed'];

  async function release(name, key, button) {
    if (!confirm(fill(words.me_release_confirm, { name: isolate(name) }))) return;
    button.disabled = true;
    try {
      await api.releaseName(name, key);
      keys.remove(name);
      say(fill(words.me_released, { name: isolate(name) }));
    } catch (e) {
      if (e?.code === 'name_not_held') keys.remove(name); // free already: nothing left to keep
      const known = { name_not_held: 'me_name_free', name_key_wrong: 'me_key_wrong' }[e?.code];
      say(known ? fill(words[known], { name: isolate(name) }) : failed(e));
    }
    draw();
    field.focus();
  }

  function row([name, key]) {
    const tr = doc.createElement('tr');
    const th = Object.assign(doc.createElement('th'), { scope: 'row' });
    th.append(Object.assign(doc.createElement('bdi'), { textContent: name }));
    const code = Object.assign(doc.createElement('code'), { className: 'recovery', dir: 'ltr', textContent: key });
    const button = Object.assign(doc.createElement('button'), { type: 'button', textContent: words.me_release });
    button.setAttribute('aria-label', fill(words.me_release_name, { name }));
    button.addEventListener('click', () => release(name, key, button));
    const cells = [code, button].map((inside) => {
      const td = doc.createElement('td');
      td.append(inside);
      return td;
    });
    tr.append(th, ...cells);
    return tr;
  }

  function draw() {
    const held = keys.entries();
    list.replaceChildren(...held.map(row));
    doc.getElementById('me-names-none').hidden = held.length > 0;
    doc.getElementById('me-names-wrap').hidden = held.length === 0;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = NameKeys.code(field.value);
    field.setAttribute('aria-invalid', String(code === null));
    if (code === null) {
      say(words.me_code_bad);
      return;
    }
    try {
      const answer = await api.recoverNames(code);
      for (const name of answer.names) keys.set(name, answer.name_key);
      // a browser with no name yet plays under the one it took back
      if (!store.get('name') && answer.names.length) store.set('name', answer.names[0]);
      field.value = '';
      draw();
      const names = new Intl.ListFormat(lang, { type: 'conjunction' }).format(answer.names.map(isolate));
      say(fill(words.me_recovered, { names }));
    } catch (e) {
      field.setAttribute('aria-invalid', String(e?.code === 'name_key_unknown'));
      say(e?.code === 'name_key_unknown' ? words.me_code_unknown : failed(e));
    }
  });
  draw();
}
