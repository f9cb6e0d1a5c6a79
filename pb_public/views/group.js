// Group decisions: the bulk accept of confident revisions, and the
// revisions selected in the queue accepted or rejected together. Each asks
// first, saying how many (the dialog's Cancel has the focus, so Enter
// changes nothing); a group accept never applies two proposals to one
// field: where proposals compete, only the one with the highest confidence
// is accepted and the others are left, and the dialog says which. The
// server plans what a group accept applies and decides a group in one
// request (lib/outbox.js).
import * as api from '../lib/api.js';
import { $, h, message, replace } from '../lib/dom.js';
import * as outbox from '../lib/outbox.js';
import { clientName, reasonRequired } from './queue.js';
import { clearSelection } from './selection.js';
import { reasonOptions } from '../lib/why.js';

let hold = () => {};

/** initGroup wires the bulk button; onDecide is the page's (see app.js). */
export function initGroup({ onDecide }) {
  hold = onDecide;
  $('#bulk-start').addEventListener('click', bulkAccept);
}

/** drawLimits writes the server's limits into the bulk button and the dialog, once the vocabulary is read. */
export function drawLimits() {
  $('#bulk-start').textContent = `Accept every pending revision with confidence ${api.limits.bulkMinConfidence} or more…`;
  $('#confirm-comment').maxLength = api.limits.commentLength;
}

// planned asks the server what a group accept of query ({client} or
// {revisions}) may apply: every pending proposal of the products counts,
// a competitor outside the group too. Held decisions are sent first, so
// that what the server says is pending is what the reviewer sees.
async function planned(query) {
  await outbox.flush();
  return api.plan(query);
}

// leftDetails says, for the revisions a group accept leaves, who wins their fields.
function leftDetails(left) {
  const lines = left.slice(0, 10).map((rev) => `#${rev.id} ${rev.sku}: ` + rev.lost.map((l) =>
    `${l.field} goes to #${l.to.id} of ${l.to.clientName || clientName(l.to.apiClient)}` +
    ` (${l.to.confidenceBand ? `confidence ${l.to.confidence}` : 'no confidence'})`).join(', '));
  if (left.length > 10) lines.push(`and ${left.length - 10} more`);
  return lines;
}

function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// bulkAccept accepts, after a confirmation, the pending revisions of the
// chosen client (or of every client) with the bulk accept's confidence or
// more; a revision decided meanwhile fails alone and is reported.
async function bulkAccept() {
  const client = $('#bulk-client').value;
  const status = $('#bulk-status');
  const failures = $('#bulk-failures');
  replace(failures);
  status.textContent = 'Counting…';
  let plan;
  try {
    plan = await planned({ client });
  } catch (err) {
    status.textContent = `Could not list the revisions: ${message(err)}`;
    return;
  }
  const whose = client ? `of “${clientName(client)}”` : 'of every client';
  const n = plan.accept.length;
  const left = plan.left.length ? ` ${plural(plan.left.length, 'competing revision')} left for you.` : '';
  if (n === 0) {
    status.textContent = `No pending revision ${whose} with confidence ${api.limits.bulkMinConfidence} or more can be accepted.${left}`;
    replace(failures, leftDetails(plan.left).map((l) => h('li', { class: 'left' }, l)));
    return;
  }
  status.textContent = 'Waiting for confirmation…';
  const answer = await confirmDialog({
    text: `Accept ${n} pending ${n === 1 ? 'revision' : 'revisions'} ${whose} with confidence ${api.limits.bulkMinConfidence} or more? ` +
      `Every proposed field of each is applied to its product.${left}`,
    details: leftDetails(plan.left),
    okLabel: `Accept ${n}`,
  });
  if (!answer) {
    status.textContent = 'Cancelled; nothing was changed.';
    return;
  }
  status.textContent = `Accepting ${n}: held for a moment, with an Undo below the revision.`;
  $('#bulk-start').disabled = true;
  hold({
    text: `Bulk: accept ${plural(n, 'revision')} ${whose}`,
    decisions: plan.accept.map((r) => ({ id: r.id, body: { status: 'accepted' } })),
    onUndo: () => {
      $('#bulk-start').disabled = false;
      status.textContent = 'Undone; nothing was changed.';
    },
    onDone: (results) => {
      $('#bulk-start').disabled = false;
      const failed = results.filter((r) => r.err);
      const sku = (id) => plan.accept.find((r) => r.id === id)?.sku;
      status.textContent = `Accepted ${n - failed.length} of ${n}` + (failed.length ? `; ${failed.length} failed (listed below).` : '.') + left;
      replace(failures,
        failed.map((r) => h('li', {}, `#${r.id} ${sku(r.id)}: ${message(r.err)}`)),
        leftDetails(plan.left).map((l) => h('li', { class: 'left' }, `Left: ${l}`)));
    },
  });
}

/**
 * decideSelected accepts or rejects the revisions selected in the queue
 * (items), after a confirmation; a rejection asks for a reason and a
 * comment in the dialog.
 */
export async function decideSelected(status, items) {
  if (!items.length) return;
  if (status === 'rejected') {
    const answer = await confirmDialog({
      text: `Reject ${plural(items.length, 'selected revision')}? Nothing of them is applied.`,
      okLabel: `Reject ${items.length}`, danger: true, why: true, requireReason: reasonRequired(),
    });
    if (!answer) return;
    const body = { status: 'rejected' };
    if (answer.reason) body.reason = answer.reason;
    if (answer.comment) body.comment = answer.comment;
    hold({
      text: `Reject ${plural(items.length, 'selected revision')}${answer.reason ? ` (${api.reasonLabel(answer.reason)})` : ''}`,
      decisions: items.map((r) => ({ id: r.id, body })),
    });
    clearSelection();
    return;
  }
  let plan;
  try {
    plan = await planned({ revisions: items.map((r) => r.id) });
  } catch (err) {
    outbox.say(`Could not read the competing proposals: ${message(err)}`, { error: true });
    return;
  }
  const n = plan.accept.length;
  const left = plan.left.length ? ` ${plural(plan.left.length, 'revision')} compete with a proposal of higher confidence and stay pending.` : '';
  if (n === 0) {
    outbox.say(`None of the selected revisions can be accepted.${left}`, { error: true });
    return;
  }
  const fields = new Set(plan.accept.flatMap((r) => r.fields));
  const answer = await confirmDialog({
    text: `Accept ${plural(n, 'selected revision')}? Every proposed field of each (${[...fields].join(', ')}) is applied to its product.${left}`,
    details: leftDetails(plan.left),
    okLabel: `Accept ${n}`,
  });
  if (!answer) return;
  hold({
    text: `Accept ${plural(n, 'selected revision')}`,
    decisions: plan.accept.map((r) => ({ id: r.id, body: { status: 'accepted' } })),
  });
  clearSelection(); // note: also of the revisions left
}

/**
 * confirmDialog asks in the page's modal dialog, with Cancel focused, and
 * resolves to null (cancelled) or {reason, comment}. why: show the reason
 * picker and comment box (requireReason: a reason is needed to confirm).
 */
export function confirmDialog({ text, details = [], okLabel, danger = false, why = false, requireReason = false }) {
  const dialog = $('#confirm');
  $('#confirm-text').textContent = text;
  replace($('#confirm-details'), details.map((d) => h('li', {}, d)));
  const ok = $('#confirm-ok');
  ok.textContent = okLabel;
  ok.className = danger ? 'danger' : 'primary';
  $('#confirm-why').hidden = !why;
  $('#confirm-error').textContent = '';
  const reason = $('#confirm-reason');
  replace(reason, reasonOptions(requireReason));
  $('#confirm-comment').value = '';
  return new Promise((resolve) => {
    const check = (e) => {
      if (why && requireReason && !reason.value) {
        e.preventDefault();
        $('#confirm-error').textContent = 'Choose a reason first.';
        reason.focus();
      }
    };
    ok.addEventListener('click', check);
    dialog.addEventListener('close', () => {
      ok.removeEventListener('click', check);
      resolve(dialog.returnValue === 'ok' ? { reason: reason.value, comment: $('#confirm-comment').value.trim() } : null);
    }, { once: true });
    dialog.returnValue = '';
    dialog.showModal();
    $('#confirm-cancel').focus();
  });
}
