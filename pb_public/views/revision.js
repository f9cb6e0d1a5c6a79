// The revision view: the product's context, each proposed field as a diff
// against the product now, the reason and comment, and the decision
// buttons. When other proposals wait for the same product, they are shown
// together (compete.js) so the reviewer picks one value per field.
import * as api from '../lib/api.js';
import * as choices from './choices.js';
import * as evidence from '../lib/evidence.js';
import * as corrections from '../lib/corrections.js';
import { fieldOutcome, leftUnapplied, pendingFields, reasonNeeded, reviewOf } from '../lib/review-state.js';
import { $, h, message, replace, when } from '../lib/dom.js';
import { changedSince, optionIds } from '../lib/diff.js';
import { fieldBlock, labels } from '../lib/fields.js';
import { picksOf } from '../lib/plan.js';
import * as compete from './compete.js';
import { askReason, reasonAndComment, resetReason, setStatus, why } from '../lib/why.js';
import { keepDraft, restoreDraft } from '../lib/draft.js';
import { legend } from '../lib/shortcuts.js';
import { zoomable } from '../lib/zoom.js';

const state = {
  id: null, rev: null, proposals: null, picks: {}, seq: 0,
  drawn: Promise.resolve(), // the drawing of the revision on screen, under way or done
  alone: false, // the reviewer asked for this proposal alone, not with its competitors
  heldBy: null, // another reviewer's claim on the revision shown ({email, name, expiresAt}): deciding is off
  cache: new Map(), // id → {at, data}: revisions read ahead
  onDecide: () => {},
};

/** initRevision sets what a decision does: onDecide({text, decisions, stopOnFailure, precheck}). */
export function initRevision({ onDecide }) {
  // note: the reason and comment of a decision come back with its undo
  state.onDecide = (d) => {
    const keep = keepDraft(state.rev?.id, reasonAndComment());
    onDecide({ ...d, onUndo: () => { d.onUndo?.(); keep(); } });
  };
}

/** shown is the revision on screen, if any. */
export function shown() {
  return state.rev;
}

/** claimable is id when it is the revision on screen and may be decided, as the server says: only such a revision is claimed. */
export function claimable(id) {
  return id && state.rev?.id === id && reviewOf(state.rev).decidable ? id : null;
}

/**
 * heldBy says that another reviewer holds the revision on screen (their
 * claim: {email, name, expiresAt}), so that deciding it is off: its
 * buttons are disabled and its keys do nothing until the claim is gone
 * (null), when they come back as they were.
 */
export function heldBy(holder) {
  state.heldBy = holder;
  showHeld();
}

// showHeld disables the decision buttons while another reviewer holds the
// revision, and enables again those it disabled.
function showHeld() {
  for (const b of $('#decide-actions').querySelectorAll('button')) {
    if (state.heldBy && !b.disabled) {
      b.disabled = true;
      b.dataset.held = '';
    } else if (!state.heldBy && 'held' in b.dataset) {
      b.disabled = false;
      delete b.dataset.held;
    }
  }
}

// held tells whether another reviewer holds the revision on screen, and
// says so where the decision's status is shown.
function held() {
  if (!state.heldBy) return false;
  setStatus(`${state.heldBy.name || state.heldBy.email} is reviewing this revision: deciding it is off until they are done.`);
  return true;
}

/** showing is the id of the revision on screen or being read to be shown next, if any. */
export function showing() {
  return state.id;
}

// load reads a revision with the product's pending proposals and the
// attribute options its values need; those of the product's template
// (template, when known) beside them.
async function load(id, product, template) {
  if (template) api.options(template).catch(() => {}); // note: a failure shows when the options are asked below
  const [rev, early] = await Promise.all([api.getRevision(id), product ? api.productProposals(product) : null]);
  let proposals = early;
  if (rev.status !== 'pending' || !rev.product) proposals = [];
  else if (!proposals || rev.product !== product) proposals = await api.productProposals(rev.product);
  const p = rev.expand?.product;
  const lists = [p?.attributes, rev.proposed?.attributes, rev.base?.attributes,
    ...proposals.map((x) => x.proposed?.attributes)];
  // note: the most confident proposal of each field is picked at first, as
  // the server plans a group accept of them all
  const [options, picks] = await Promise.all([
    lists.some((l) => Array.isArray(l) && l.length) ? api.options(p?.attributeTemplate, optionIds(...lists)) : new Map(),
    proposals.length > 1 ? api.plan({ revisions: proposals.map((x) => x.id) }).then(picksOf) : {},
  ]);
  return { rev, proposals, options, picks };
}

/** prefetch reads a revision ahead ({id, product, expand}: a queue item), so that it shows at once when the reviewer gets to it. */
export function prefetch(item) {
  if (!item || state.cache.has(item.id)) return;
  const entry = { at: Date.now(), data: load(item.id, item.product, item.expand?.product?.attributeTemplate) };
  entry.data.catch(() => state.cache.delete(item.id));
  state.cache.set(item.id, entry);
  for (const key of [...state.cache.keys()].slice(0, -3)) state.cache.delete(key);
}

/**
 * show reads revision id (fresh, with its product as it is now; or as read
 * ahead in the last 15 s) and renders it. product and template: its
 * product and the product's template, when known, are read alongside.
 */
export function show(id, options = {}) {
  // note: showing the revision on screen again waits for its drawing under
  // way, so that what follows the drawing (its claim) finds it drawn
  if (id && id === state.id && !options.force) return state.drawn;
  state.drawn = draw(id, options);
  return state.drawn;
}

async function draw(id, { product, template, force = false }) {
  const body = $('#revision-body');
  if (!id) {
    state.id = null;
    state.rev = null;
    replace(body, h('p', { class: 'muted center' }, 'Nothing to review here.'));
    replace($('#decide-actions'));
    return;
  }
  if (id !== state.id) {
    // note: a revision with edits kept (a correction the server refused)
    // comes back alone, where its editors are, not among its competitors
    state.alone = corrections.kept(id);
    state.heldBy = null;
  }
  const refocus = focusInside();
  state.id = id;
  resetReason();
  const seq = ++state.seq;
  body.setAttribute('aria-busy', 'true');
  try {
    const ahead = state.cache.get(id);
    state.cache.delete(id);
    const data = await (ahead && !force && Date.now() - ahead.at < 15000 ? ahead.data : load(id, product, template));
    if (seq !== state.seq) return;
    const moved = state.rev?.id !== data.rev.id;
    state.rev = data.rev;
    state.proposals = data.proposals;
    state.options = data.options;
    state.picks = data.picks;
    // note: the next revision is read from its top (scrolled before it is
    // drawn, while the layout is still clean, so that no layout is forced)
    if (moved && body.scrollTop) body.scrollTop = 0;
    render();
    restoreFocus(refocus);
  } catch (err) {
    if (seq !== state.seq) return;
    state.rev = null;
    replace($('#decide-actions'));
    replace(body, h('p', { class: 'error center', role: 'alert' },
      err.status === 404 ? `Revision ${id} was not found.` : `Could not load revision ${id}: ${message(err)}`));
  } finally {
    if (seq === state.seq) body.removeAttribute('aria-busy');
  }
}

// focusInside is the id of the element of the revision view that has the
// focus (a decision button, say), to focus its like in the next revision.
function focusInside() {
  const el = document.activeElement;
  return el && $('#revision').contains(el) ? el.id || 'revision-body' : null;
}

function restoreFocus(id) {
  if (!id) return;
  const el = document.getElementById(id);
  const target = el && !el.disabled && $('#revision').contains(el) ? el : $('#revision-body');
  // note: scrolled to at the next frame, when the page is laid out anyway
  target.focus({ preventScroll: true });
  requestAnimationFrame(() => target.isConnected && target.scrollIntoView({ block: 'nearest' }));
}

function render() {
  const rev = state.rev;
  const product = rev.expand?.product;
  const review = reviewOf(rev);
  const decidable = review.decidable;
  const rivals = decidable ? state.proposals.filter((p) => p.id !== rev.id) : [];
  const together = rivals.length > 0 && !state.alone;
  const head = header(rev, product);
  if (together) {
    const all = [rev, ...rivals].map((p) => (p.id === rev.id ? { ...p, ...rev } : p));
    const view = compete.render(all, {
      rev, product, options: state.options, picks: state.picks,
      onAlone: () => { state.alone = true; render(); },
      onDecide: (d) => state.onDecide(d),
    });
    evidence.decorateChoices(view.body, all);
    replace($('#revision-body'), head, view.body);
    replace($('#decide-actions'), view.actions);
    legend({ rejectAll: all.length });
    restoreDraft(rev.id);
    showHeld();
    return;
  }
  const fields = review.fields.map((f) => f.name); // the proposed fields, in the API's order
  const pending = pendingFields(rev);
  const changed = decidable && product ? pending.filter((f) => changedSince(f, product[f], rev.base?.[f])) : [];
  const blocks = h('div', { class: 'fields' }, fields.map((f, i) => fieldBlock(f, i + 1, rev, {
    product, options: state.options, decidable, changed: changed.includes(f),
    state: fieldState(rev, f), now: rev.status === 'pending',
  })));
  choices.decorate(blocks, rev, { decidable, product });
  replace($('#revision-body'),
    head,
    warnings(rev, product, changed),
    rev.status === 'pending' ? null : closedNote(rev),
    rivals.length ? h('p', { class: 'rivals-note' },
      `${rivals.length} other pending proposal${rivals.length === 1 ? '' : 's'} for this product. `,
      h('button', { type: 'button', class: 'link-button', id: 'show-together', onclick: () => { state.alone = false; render(); } },
        'Compare them together ', h('kbd', {}, 't'))) : null,
    evidence.modelLine(rev),
    evidence.others(rev, fields),
    blocks,
    decidable ? why({ required: review.reasonRequired }) : null);
  replace($('#decide-actions'), decidable ? decisionButtons(rev, product, pending) : null);
  legend({ rejectAll: 0 });
  restoreDraft(rev.id);
  showHeld();
}

// header names the revision and shows its product's context.
function header(rev, product) {
  const client = rev.expand?.apiClient?.name || `client #${rev.apiClient}`;
  const confidence = rev.confidenceBand ? `confidence ${rev.confidence} (${api.bandLabel(rev.confidenceBand)})` : 'no confidence given';
  return [
    h('header', { class: 'rev-head' },
      h('button', { type: 'button', class: 'back link-button', onclick: () => document.dispatchEvent(new Event('queue:back')) }, '‹ Queue'),
      phoneMoves(),
      h('h2', { id: 'rev-title' }, h('span', { class: 'sku' }, rev.sku), ' ', product?.name || ''),
      h('p', { class: 'meta' },
        `Revision #${rev.id} · from ${client} · ${confidence} · proposed ${when(rev.created)}`,
        rev.status === 'pending' ? null : [' · ', h('span', { class: `badge status st-${rev.status}` }, rev.status)])),
    context(product),
  ];
}

// phoneMoves are a phone's previous and skip (next without deciding), beside its Back.
function phoneMoves() {
  const step = (n) => () => document.dispatchEvent(new CustomEvent('queue:move', { detail: n }));
  return h('span', { class: 'moves' },
    h('button', { type: 'button', class: 'link-button', id: 'phone-prev', onclick: step(-1) }, '‹ Previous'),
    h('button', { type: 'button', class: 'link-button', id: 'phone-skip', onclick: step(1) }, 'Skip ›'));
}

// showable tells an image URL the page may load: http(s), or a path on this server (the demo's images);
// note: a path starts with "/" so it keeps the page's own scheme: never javascript:, data: or the like
const showable = (u) => /^(https?:\/\/|\/)/i.test(String(u));

/** context shows what the product is: image, brand, categories, template, and its dashboard record. */
export function context(product) {
  if (!product) return h('div', { class: 'context' }, h('p', { class: 'muted' }, 'The product of this revision no longer exists.'));
  const image = (Array.isArray(product.images) ? product.images : []).find(showable);
  const categories = Array.isArray(product.categories) ? product.categories.map(String) : [];
  const fact = (term, value) => (value ? [h('dt', {}, term), h('dd', {}, value)] : null);
  return h('div', { class: 'context', id: 'product-context' },
    image ? zoomable(h('img', {
      src: image, alt: '', width: '64', height: '64', loading: 'lazy', referrerpolicy: 'no-referrer', class: 'thumb',
      onerror: (e) => (e.target.closest('.zoom') || e.target)
        .replaceWith(h('span', { class: 'thumb none', title: 'The image could not be loaded' }, 'no image')),
    }), product.name) : h('span', { class: 'thumb none' }, 'no image'),
    h('dl', {},
      fact('Brand', product.expand?.brand?.name),
      fact('Categories', categories.join(' › ')),
      fact('Template', product.expand?.attributeTemplate?.name),
      completeness(product),
      product.active ? null : fact('Status', 'inactive')),
    // note: only superusers may use the dashboard
    api.isSuperuser() ? h('a', {
      href: `/_/#/collections?collection=products&record=${encodeURIComponent(product.id)}`, target: '_blank', rel: 'noopener',
      class: 'dashboard', title: 'The product in the dashboard (superusers)',
    }, 'Dashboard record') : null);
}

// completeness is the product's completeness and its gaps, most important
// first, as the vendors' gaps list gives them (as the product is now).
function completeness(product) {
  if (typeof product.completeness !== 'number') return null;
  const gaps = Array.isArray(product.gaps) ? product.gaps.map((g) => String(g).replace(/^attributes\./, '')) : [];
  return [
    h('dt', {}, 'Completeness'),
    h('dd', { id: 'product-completeness', dataset: { completeness: String(product.completeness) } },
      `${product.completeness} %`, gaps.length ? h('span', { class: 'muted' }, ` · missing ${gaps.join(', ')}`) : null),
  ];
}

function warnings(rev, product, changed) {
  const out = [];
  if (rev.status === 'pending') {
    if (reviewOf(rev).overdue) {
      out.push(`This proposal waited longer than the organization allows (${reviewOf(rev).ttlDays} days): ` +
        'it expires and cannot be decided.');
    } else if (!product) {
      out.push('The product of this revision no longer exists: it can only be rejected.');
    } else if (!product.active) {
      out.push('The product is inactive: this revision can only be rejected.');
    }
    if (changed.length) {
      out.push(`The product changed since this proposal was made (${changed.map((f) => labels[f]).join(', ')}): ` +
        'each diff shows what accepting does to the product as it is now.');
    }
  }
  return out.length ? h('div', { class: 'warning', role: 'alert', id: 'rev-warning' }, out.map((w) => h('p', {}, '⚠ ', w))) : null;
}

/** fieldState is one proposed field's state, as the server says (GET /api/enrichment/revisions shows the same). */
export function fieldState(rev, field) {
  return fieldOutcome(rev, field);
}

function closedNote(rev) {
  const parts = [];
  if (rev.status === 'superseded') {
    parts.push(`Superseded on ${when(rev.closedAt)}: the same client sent a newer proposal for these fields`);
    if (rev.supersededBy) parts.push(' (', h('a', { href: `#queue/${rev.supersededBy}` }, `revision #${rev.supersededBy}`), ')');
    parts.push('. It cannot be decided.');
  } else if (rev.status === 'expired') {
    parts.push(`Expired on ${when(rev.closedAt)}: it waited longer than the organization allows. It cannot be decided.`);
  } else if (rev.status === 'reverted') {
    // note: a rollback keeps the acceptance's reviewedAt and reviewer; it has its own time and author
    parts.push(`This revision was reverted on ${when(rev.revertedAt)} by ${who(reviewOf(rev).revertedBy)}`);
    if (rev.reviewedAt) parts.push(`, after ${who(reviewOf(rev).reviewer)} accepted it on ${when(rev.reviewedAt)}`);
    parts.push('.');
  } else {
    const which = rev.status === 'accepted' && rev.approvedFields?.length ? ` (${rev.approvedFields.join(', ')})` : '';
    parts.push(`This revision was ${rev.status}${which} on ${when(rev.reviewedAt || rev.closedAt)} by ${who(reviewOf(rev).reviewer)}.`);
    if (rev.reason) parts.push(` Reason: ${api.reasonLabel(rev.reason)}.`);
    if (rev.comment) parts.push(' Comment: “', rev.comment, '”');
  }
  return h('p', { class: `decided st-${rev.status}`, role: 'status', id: 'closed-note' }, parts);
}

// who names a decider for people, from the name the review state gives
// (the revision's own reviewer and revertedBy hold record ids):
// "reviewer:EMAIL" is EMAIL, "superuser:EMAIL" EMAIL (superuser), "policy"
// a trust policy, "system" the service; anything else as it is.
function who(name) {
  const [kind, ...rest] = String(name || '').split(':');
  const email = rest.join(':');
  if (kind === 'reviewer' && email) return email;
  if (kind === 'superuser' && email) return `${email} (superuser)`;
  if (kind === 'policy') return 'a trust policy';
  if (kind === 'system') return 'the service';
  return name || 'someone';
}

function decisionButtons(rev, product, pending) {
  const canAccept = Boolean(product?.active);
  return [
    h('button', { type: 'button', class: 'primary', id: 'accept-all', disabled: !canAccept, onclick: () => acceptAll() },
      'Accept all ', h('kbd', {}, 'a')),
    h('button', { type: 'button', id: 'accept-selected', disabled: !canAccept, onclick: () => acceptSelected() },
      'Accept ticked ', h('kbd', {}, 's')),
    h('button', { type: 'button', class: 'danger', id: 'reject', onclick: () => reject() },
      'Reject ', h('kbd', {}, 'r')),
    h('span', { class: 'small muted' }, `${pending.length} field${pending.length === 1 ? '' : 's'} to decide`),
    h('p', { id: 'decision-status', role: 'status', class: 'small' }),
  ];
}

function together() {
  return $('#revision-body .compete');
}

/** toggleField ticks or unticks the n-th proposed field (1-based); with competitors, goes to the n-th field's choice. */
export function toggleField(n) {
  if (together()) return compete.focusField(n);
  const box = document.querySelectorAll('#revision .pick')[n - 1];
  if (box) {
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change', { bubbles: true }));
  }
}

/**
 * acceptAll accepts every pending field of the revision on screen (with
 * competitors: shows what the choices apply, then applies them at the next
 * call, as a key does).
 */
export function acceptAll() {
  if (held()) return;
  if (together()) return compete.applyByKey();
  return decideShown('accepted', null);
}

/** acceptSelected accepts the ticked fields and attributes only (with competitors: as acceptAll). */
export function acceptSelected() {
  if (held()) return;
  if (together()) return compete.applyByKey();
  return decideShown('accepted', 'ticked');
}

/** toggleAlone shows the revision alone, or with the proposals competing for its product again. */
export function toggleAlone() {
  const button = $('#show-alone') || $('#show-together');
  if (!button) return;
  button.click();
  $('#revision-body').focus({ preventScroll: true });
}

/** reject rejects the revision on screen (with competitors: all of them). */
export function reject() {
  if (held()) return;
  if (together()) return compete.rejectAll();
  return decideShown('rejected', null);
}

/** focusReason and focusComment put the cursor in the reason picker or the comment box. */
export function focusReason() {
  $('#reason')?.focus();
}

export function focusComment() {
  $('#comment')?.focus();
}

function decidableRev() {
  const rev = state.rev;
  if (!rev || !reviewOf(rev).decidable || !$('#decide-actions button') || held()) return null;
  return rev;
}

// decideShown decides the revision on screen as the view says (choices.js):
// the fields and attributes ticked (which: 'ticked'; null: everything
// pending), the values edited, the reasons per field, the reason and the
// comment.
function decideShown(status, which) {
  const rev = decidableRev();
  if (!rev) return;
  const d = choices.decision(rev, status, { all: which !== 'ticked' });
  if (d.nothing) {
    setStatus('Tick at least one field to accept, or reject the revision.');
    return;
  }
  const { reason, comment } = reasonAndComment();
  const unapplied = leftUnapplied(rev, d.applied).length > 0;
  // note: a reason is for what is not applied; accepting everything would drop it
  if (!unapplied && reason) {
    setStatus('A reason is for rejecting or accepting in part: untick the fields not to apply (then s), reject (r), or clear the reason to accept all.');
    $('#reason')?.focus();
    return;
  }
  if (!reason && !d.fieldReasons && reasonNeeded(rev, d.applied)) {
    askReason(`Choose a reason (↑ ↓), or one beside a field, then press Enter to ${status === 'rejected' ? 'reject' : 'accept the ticked fields'}.`,
      () => decideShown(status, which));
    return;
  }
  const body = { status };
  if (d.approvedFields) body.approvedFields = d.approvedFields;
  if (d.corrections) body.corrections = d.corrections;
  if (d.fieldReasons) body.fieldReasons = d.fieldReasons;
  if (unapplied && reason) body.reason = reason;
  if (comment) body.comment = comment;
  const fixed = d.corrections ? Object.keys(d.corrections).length : 0;
  const what = status === 'rejected' ? 'rejected' : `accepted: ${d.applied.join(', ')}${fixed ? ` (${fixed} corrected)` : ''}`;
  const why = body.reason ? ` (${api.reasonLabel(body.reason)})` : '';
  state.onDecide({
    text: `Revision #${rev.id} (${rev.sku}) ${what}${why}`, decisions: [{ id: rev.id, body }],
    onDone: ([r]) => afterDecision(rev.id, r),
  });
}

// afterDecision forgets the edits of a revision decided; a correction the
// server refused brings the revision back, with the refusal beside its field.
function afterDecision(id, r) {
  if (r?.res) {
    corrections.forget(id);
    return;
  }
  if (!r?.err || !corrections.refused(id, r.err)) return;
  if (state.id === id) show(id, { force: true });
  else location.hash = `#queue/${id}`;
}
