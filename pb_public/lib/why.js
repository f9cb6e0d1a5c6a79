// The reason picker and comment box of a decision that leaves something
// unapplied (a rejection, a partial approval), and the decision that waits
// for a reason: Enter in the picker makes it.
import * as api from './api.js';
import { $, h } from './dom.js';

let awaiting = null;

/** why draws the reason picker and comment box; required: the server says a reason is needed for what is left unapplied. */
export function why({ required = false } = {}) {
  const reason = h('select', { id: 'reason', onkeydown: reasonKeys }, reasonOptions(required));
  return h('div', { class: 'why', id: 'why' },
    h('div', { class: 'field' },
      h('label', { for: 'reason' }, 'Reason ', h('span', { class: 'muted' },
        required ? '(required to reject or accept in part)' : '(when rejecting or accepting in part)')),
      reason),
    h('div', { class: 'field' },
      h('label', { for: 'comment' }, 'Comment to the vendor ', h('span', { class: 'muted' }, '(optional)')),
      h('textarea', { id: 'comment', rows: '2', maxlength: String(api.limits.commentLength) })));
}

/** reasonOptions are a reason picker's options: none (or "choose" when required), then the reasons. */
export function reasonOptions(required) {
  return [h('option', { value: '' }, required ? 'Choose a reason…' : 'No reason'),
    ...api.reasons.map((r) => h('option', { value: r.value }, r.label))];
}

// reasonKeys: Enter in the reason picker makes the decision that waits for it.
function reasonKeys(e) {
  if (e.key !== 'Enter' || !awaiting) return;
  e.preventDefault();
  const run = awaiting;
  awaiting = null;
  run();
}

/** reasonAndComment reads the reason picker and comment box. */
export function reasonAndComment() {
  return { reason: $('#reason')?.value || '', comment: ($('#comment')?.value || '').trim() };
}

/**
 * askReason puts the cursor in the reason picker and says why; retry runs
 * when the reviewer presses Enter there.
 */
export function askReason(text, retry) {
  awaiting = retry;
  setStatus(text);
  const el = $('#reason');
  el?.scrollIntoView({ block: 'nearest' });
  el?.focus();
}

/** resetReason forgets a decision waiting for a reason (another revision is shown). */
export function resetReason() {
  awaiting = null;
}

/** setStatus says something about the decision under way, beside its buttons. */
export function setStatus(text) {
  const el = $('#decision-status');
  if (el) el.textContent = text;
}
