// Corrections: the reviewer edits a proposed value before accepting it,
// and the product gets the reviewer's value instead (the decision's
// `corrections`, keyed by field or attributes.NAME). The field's diff then
// shows the corrected value against the product's value now. Edits are
// kept per revision until it is decided, so that a correction the server
// refuses (400 naming its key) comes back, with the server's words beside
// the field, when the revision is shown again.
import { append, h, replace } from './dom.js';
import { filesInline, textInline } from './fields.js';
import { attributeKey } from './review-state.js';
import { fieldLabels } from './api.js';

const drafts = new Map(); // revision id → Map key → value (a string, or a list for files)
const refusals = new Map(); // revision id → {key, text}

function draftOf(id) {
  if (!drafts.has(id)) drafts.set(id, new Map());
  return drafts.get(id);
}

/** correctionsFor is the object of rev's edits among keys (what the decision applies), or null when none. */
export function correctionsFor(rev, keys) {
  const d = drafts.get(rev.id);
  if (!d) return null;
  const out = {};
  for (const [key, value] of d) if (keys.includes(key)) out[key] = value;
  return Object.keys(out).length ? out : null;
}

/**
 * kept tells whether revision id has edits kept or a refusal to show: its
 * editors are in the view of the revision alone, so it is shown alone.
 */
export function kept(id) {
  return Boolean(drafts.get(id)?.size || refusals.has(id));
}

/** editedKeys are the keys rev has edits for. */
export function editedKeys(rev) {
  return [...(drafts.get(rev.id)?.keys() ?? [])];
}

/** forget drops the edits and refusal of revision id (it was decided). */
export function forget(id) {
  drafts.delete(id);
  refusals.delete(id);
}

/**
 * refused reads a decision's refusal: a 400 about `corrections` names the
 * key at fault in its message ("\"slug\" is not a slug…"); it is kept to
 * be shown beside that field. Answers whether it was one.
 */
export function refused(id, err) {
  const data = err?.response?.data?.corrections;
  if (err?.status !== 400 || !data) return false;
  const text = String(data.message || err.response.message || 'The correction was refused.');
  const key = text.match(/^"((?:[^"\\]|\\.)*)"/)?.[1]?.replace(/\\(.)/g, '$1') ?? '';
  refusals.set(id, { key, text });
  return true;
}

/** refusalOf is the refusal kept for revision id, if any: {key, text}. */
export function refusalOf(id) {
  return refusals.get(id) ?? null;
}

// asText is a value as the editor shows it: files one per line.
function asText(field, value) {
  if (field === 'files') return (Array.isArray(value) ? value : []).map(String).join('\n');
  return value == null ? '' : String(value);
}

// fromText reads an editor's text: files one per line, blanks left out.
function fromText(field, text) {
  if (field === 'files') return text.split('\n').map((l) => l.trim()).filter(Boolean);
  return text;
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * editor draws the edit control of one key of rev: a button that opens an
 * input prefilled with the proposed value (or the edit kept), and the
 * server's refusal, if any. proposed is the proposed value; redraw(value)
 * shows the diff for value (null: the proposal's); onEdit runs when the
 * value is edited (the field is then ticked), onShow when the editor is
 * opened or closed. id names the input.
 */
export function editor(rev, { key, field, proposed, id, label, redraw, onEdit, onShow }) {
  const d = draftOf(rev.id);
  const multiline = field === 'description' || field === 'files';
  const input = h(multiline ? 'textarea' : 'input', {
    id, class: 'correct-input', dataset: { key }, rows: multiline ? (field === 'files' ? '3' : '5') : null,
    type: multiline ? null : 'text', autocomplete: 'off', spellcheck: field === 'slug' ? 'false' : null,
  });
  input.value = asText(field, d.has(key) ? d.get(key) : proposed);
  const note = h('span', { class: 'corrected-note small' });
  const error = h('p', { class: 'correction-error error small', role: 'alert', id: `${id}-error` });
  const reset = h('button', { type: 'button', class: 'link-button reset-correction', hidden: true }, 'Use the proposal');
  const box = h('div', { class: 'correct', hidden: true },
    h('label', { for: id, class: 'small' }, `Your value for ${label}`, field === 'files' ? ' (one per line)' : ''),
    input, h('div', {}, note, ' ', reset), error);
  const open = h('button', {
    type: 'button', class: 'link-button edit-value', 'aria-expanded': 'false', 'aria-controls': id, 'aria-label': `Edit value of ${label}`,
  }, 'Edit value');
  const show = (on) => {
    box.hidden = !on;
    open.setAttribute('aria-expanded', String(on));
    onShow?.();
  };
  const update = () => {
    const value = fromText(field, input.value);
    const edited = !same(value, fromText(field, asText(field, proposed)));
    if (edited) d.set(key, value);
    else d.delete(key);
    note.textContent = edited ? 'Corrected: accepting applies your value instead of the proposal.' : '';
    reset.hidden = !edited;
    redraw(edited ? value : null);
    return edited;
  };
  open.addEventListener('click', () => {
    show(box.hidden);
    if (!box.hidden) input.focus();
  });
  input.addEventListener('input', () => {
    error.textContent = '';
    if (update()) onEdit?.();
  });
  reset.addEventListener('click', () => {
    input.value = asText(field, proposed);
    error.textContent = '';
    update();
    input.focus();
  });
  const refusal = refusals.get(rev.id);
  if (refusal && refusal.key === key) error.textContent = `Refused: ${refusal.text}`;
  if (d.has(key) || error.textContent) {
    show(true);
    update();
  }
  return { open, box };
}

/** textTools adds the editor of a text field or of files to its block, its diff against now. */
export function textTools(block, rev, field, now, { onEdit }) {
  const inline = block.querySelector('.inline');
  const toggles = block.querySelector('.toggles');
  const original = inline ? [...inline.childNodes] : [];
  const redraw = (value) => {
    if (!inline) return;
    if (value === null) {
      replace(inline, original);
      // note: back to the proposal, the diff is shown as its toggle says (in columns, for a rewritten text)
      const cols = block.querySelector('.cols');
      const inColumns = block.querySelector('.cols-toggle')?.getAttribute('aria-expanded') === 'true';
      if (cols) cols.hidden = !inColumns;
      inline.hidden = Boolean(cols) && inColumns;
    } else {
      replace(inline, field === 'files' ? filesInline(now, value) : textInline(now, value));
      inline.hidden = false;
      const cols = block.querySelector('.cols');
      if (cols) cols.hidden = true;
    }
    inline.classList.toggle('corrected', value !== null);
    if (toggles) toggles.hidden = value !== null;
  };
  const { open, box } = editor(rev, {
    key: field, field, proposed: rev.proposed[field], id: `correct-${field}`, label: fieldLabels[field] || field, redraw, onEdit,
  });
  return h('div', { class: 'correct-tools' }, open, box);
}

/**
 * attributeTools adds the editor of one proposed attribute: its button
 * beside the name, the editor (and extra, its reason picker) in a row of
 * their own under the attribute's, shown while one of them is; the
 * attribute's Proposed cell shows the corrected value's diff. Answers the
 * function that shows or hides that row as its content is.
 */
export function attributeTools(row, rev, name, index, nowDetail, proposedDetail, { onEdit, extra }) {
  const cell = row.querySelector('td.c-proposed');
  const original = cell ? [...cell.childNodes] : [];
  const redraw = (value) => {
    if (!cell) return;
    if (value === null) replace(cell, original);
    else replace(cell, textInline(nowDetail ?? '', value));
    row.classList.toggle('corrected', value !== null);
  };
  const holder = h('td', { colspan: String(row.children.length) });
  const tools = h('tr', { class: 'attr-tools', hidden: true }, holder);
  const sync = () => { tools.hidden = [...holder.children].every((c) => c.hidden); };
  const { open, box } = editor(rev, {
    key: attributeKey(name), field: 'attributes', proposed: proposedDetail, id: `correct-attr-${index}`, label: name,
    redraw, onEdit, onShow: sync,
  });
  append(holder, [extra, box]);
  row.after(tools);
  row.querySelector('th')?.append(' ', open);
  sync();
  return sync;
}
