// The reviewer's choices on one revision, field by field: each proposed
// attribute ticked on its own (approvedFields with attributes.NAME), a value edited before it is
// accepted (lib/corrections.js), a reason for each field or attribute not
// applied (fieldReasons), and beside each field the issues and evidence
// that came with it (lib/evidence.js). On a decided revision, each
// attribute shows what became of it, as the server says
// (lib/review-state.js). decorate adds all this to the field blocks that
// lib/fields.js drew; decision reads it back as the body of a decision.
import * as api from '../lib/api.js';
import { h } from '../lib/dom.js';
import * as corrections from '../lib/corrections.js';
import * as evidence from '../lib/evidence.js';
import { attributeKey, attributeOutcome, pendingAttributes, pendingFields, proposedAttributes } from '../lib/review-state.js';

const list = (v) => (Array.isArray(v) ? v : []);

// detailOf is the detail of attribute name in a list of attributes.
function detailOf(attrs, name) {
  const a = list(attrs).find((x) => x?.attribute === name);
  return a === undefined ? undefined : String(a.detail ?? '');
}

// reasonPicker is a "why not applied" picker for key, shown while it is not ticked.
function reasonPicker(key, id, label, chosen) {
  const select = h('select', { id, class: 'field-reason', dataset: { key }, 'aria-label': `Reason for not applying ${label}` },
    h('option', { value: '' }, 'No reason for this one'),
    api.reasons.map((r) => h('option', { value: r.value }, r.label)));
  if (chosen) select.value = chosen;
  return select;
}

// rows are the attributes table's rows of the proposed attributes, by name.
function rows(block) {
  const out = new Map();
  for (const tr of block.querySelectorAll('table.attrs tr[data-attribute]')) {
    if (!out.has(tr.dataset.attribute)) out.set(tr.dataset.attribute, tr);
  }
  return out;
}

/**
 * decorate adds the reviewer's choices to the field blocks in container for
 * rev: view {decidable, product}. A pending field block gets an editor, a
 * reason picker (shown while it is unticked), its issues and sources; the
 * attributes block a tick box, an editor and a reason picker per pending
 * attribute, and each attribute's state once decided.
 */
export function decorate(container, rev, { decidable, product }) {
  const pending = decidable ? pendingFields(rev) : [];
  for (const block of container.querySelectorAll('.field-block[data-field]')) {
    const field = block.dataset.field;
    const open = pending.includes(field);
    const extra = h('div', { class: 'field-choices' });
    if (field === 'attributes') attributes(block, rev, { decidable: open, product });
    else if (open) {
      const tick = () => setTicked(block, true);
      extra.append(corrections.textTools(block, rev, field, product?.[field], { onEdit: tick }));
    }
    if (open) {
      const why = h('div', { class: 'field-why', hidden: true },
        reasonPicker(field, `field-reason-${field}`, api.fieldLabels[field] || field));
      extra.append(why);
      const box = block.querySelector(`#pick-${field}`);
      const sync = () => { why.hidden = box.checked || box.indeterminate; };
      box?.addEventListener('change', sync);
      if (box) sync();
    }
    if (!decidable) extra.append(decided(rev, field));
    extra.append(evidence.beside(rev, field) ?? '');
    block.append(extra);
  }
}

// setTicked ticks or unticks a field block's tick box, as a click would.
function setTicked(block, on) {
  const box = block.querySelector('.field-head .pick');
  if (box && box.checked !== on) {
    box.checked = on;
    box.dispatchEvent(new Event('change', { bubbles: true }));
  }
}

// decided says, on a decided revision, what the reviewer corrected and why a field was not applied.
function decided(rev, field) {
  const c = rev.corrections?.[field];
  const why = rev.fieldReasons?.[field];
  return [
    c !== undefined ? h('p', { class: 'small corrected-was' }, 'Corrected by the reviewer to: ',
      h('span', { class: 'value' }, Array.isArray(c) ? c.join(', ') : String(c))) : null,
    why ? h('p', { class: 'small field-reason-was' }, `Not applied: ${api.reasonLabel(why)}`) : null,
  ];
}

// attributes decorates the attributes table: tick boxes, editors and
// reason pickers on a pending revision, each attribute's state otherwise.
function attributes(block, rev, { decidable, product }) {
  const field = block.querySelector('#pick-attributes');
  const open = decidable ? pendingAttributes(rev) : [];
  const byName = rows(block);
  const boxes = [];
  const shows = new Map(); // tick box → what shows its reason picker as it is ticked
  proposedAttributes(rev).forEach((name, i) => {
    const tr = byName.get(name);
    if (!tr) return;
    const th = tr.querySelector('th');
    const state = attributeOutcome(rev, name);
    tr.dataset.state = state;
    if (!open.includes(name)) {
      if (state !== 'pending') {
        th.append(' ', h('span', { class: `badge fs-${state} attr-state` }, api.outcomeLabels[state] || state));
      }
      const c = rev.corrections?.[attributeKey(name)];
      if (c !== undefined) th.append(h('span', { class: 'small corrected-was' }, ` corrected to “${c}”`));
      const why = rev.fieldReasons?.[attributeKey(name)];
      if (why) th.append(h('span', { class: 'small field-reason-was' }, ` (${api.reasonLabel(why)})`));
      return;
    }
    const box = h('input', {
      type: 'checkbox', class: 'pick-attr', id: `pick-attr-${i}`, checked: field ? field.checked : true,
      dataset: { attribute: name }, 'aria-label': `Apply ${name}`,
    });
    const why = h('div', { class: 'field-why', hidden: true }, reasonPicker(attributeKey(name), `field-reason-attr-${i}`, name));
    th.prepend(box, ' ');
    const now = detailOf(product?.attributes, name);
    const proposed = detailOf(rev.proposed?.attributes, name);
    const syncRow = corrections.attributeTools(tr, rev, name, i, now, proposed, {
      extra: why,
      onEdit: () => {
        if (!box.checked) {
          box.checked = true;
          box.dispatchEvent(new Event('change', { bubbles: true }));
        }
      },
    });
    const show = () => {
      why.hidden = box.checked;
      syncRow();
    };
    shows.set(box, show);
    box.addEventListener('change', () => {
      show();
      syncField(field, boxes);
    });
    boxes.push(box);
  });
  if (!field) return;
  field.addEventListener('change', () => {
    field.indeterminate = false;
    for (const b of boxes) {
      b.checked = field.checked;
      shows.get(b)();
    }
  });
  syncField(field, boxes);
}

// syncField shows on the attributes' tick box whether all, some or none of them are ticked.
function syncField(field, boxes) {
  if (!field || !boxes.length) return;
  const on = boxes.filter((b) => b.checked).length;
  field.checked = on > 0;
  field.indeterminate = on > 0 && on < boxes.length;
  const why = field.closest('.field-block')?.querySelector(':scope > .field-choices > .field-why');
  if (why) why.hidden = on > 0;
}

/** ticked are the fields ticked in the revision view, and the attributes ticked ({fields, attributes}). */
function ticked(rev) {
  const fields = [...document.querySelectorAll('#revision .field-head .pick')].filter((c) => c.checked).map((c) => c.dataset.field);
  let attrs = [];
  if (fields.includes('attributes')) {
    const boxes = [...document.querySelectorAll('#revision .pick-attr')];
    attrs = boxes.length ? boxes.filter((b) => b.checked).map((b) => b.dataset.attribute) : pendingAttributes(rev);
  }
  return { fields: fields.filter((f) => f !== 'attributes' || attrs.length), attributes: attrs };
}

// reasonsFor reads the reason pickers of the keys not applied.
function reasonsFor(keys) {
  const out = {};
  for (const s of document.querySelectorAll('#revision select.field-reason')) {
    if (s.value && keys.includes(s.dataset.key)) out[s.dataset.key] = s.value;
  }
  return Object.keys(out).length ? out : null;
}

/**
 * decision is what the revision view says about rev for a decision of
 * status: {approvedFields (null: everything pending), corrections,
 * fieldReasons, partial, applied (keys), nothing (an acceptance with
 * nothing ticked)}. all: the reviewer accepts everything pending.
 */
export function decision(rev, status, { all = false } = {}) {
  const fields = pendingFields(rev);
  const attrs = fields.includes('attributes') ? pendingAttributes(rev) : [];
  const everything = [...fields.filter((f) => f !== 'attributes'), ...attrs.map(attributeKey)];
  if (fields.includes('attributes') && !attrs.length) everything.push('attributes');
  if (status === 'rejected') {
    return { approvedFields: null, corrections: null, fieldReasons: reasonsFor([...fields, ...attrs.map(attributeKey)]), partial: false, applied: [] };
  }
  let approvedFields = null;
  let applied = everything;
  if (!all) {
    const t = ticked(rev);
    if (!t.fields.length) return { nothing: true };
    const allAttrs = attrs.every((n) => t.attributes.includes(n));
    const names = t.fields.flatMap((f) => {
      if (f !== 'attributes' || !attrs.length) return [f];
      return allAttrs ? ['attributes'] : t.attributes.map(attributeKey);
    });
    applied = t.fields.flatMap((f) => (f === 'attributes' && attrs.length ? t.attributes.map(attributeKey) : [f]));
    if (applied.length < everything.length) approvedFields = names;
  }
  const partial = approvedFields !== null;
  const unapplied = [...fields, ...attrs.map(attributeKey)].filter((k) => !applied.includes(k) &&
    !(k === 'attributes' && applied.some((a) => a.startsWith('attributes.'))));
  return {
    approvedFields, partial, applied,
    corrections: corrections.correctionsFor(rev, applied),
    fieldReasons: partial ? reasonsFor(unapplied) : null,
  };
}
