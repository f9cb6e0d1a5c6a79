// The keys: `?` shows them all in a dialog; the legend at the foot of the
// queue says what r does to the revision shown (with competing proposals,
// it rejects every one of them).
import { $ } from './dom.js';

/** initShortcuts wires the dialog's Close. */
export function initShortcuts() {
  $('#shortcuts-close').addEventListener('click', () => $('#shortcuts').close());
}

/** show opens the dialog of the keys (or closes it, when open). */
export function show() {
  const dialog = $('#shortcuts');
  if (dialog.open) {
    dialog.close();
    return;
  }
  dialog.showModal();
  $('#shortcuts-close').focus();
}

/** legend says what r does: rejectAll, how many competing proposals it rejects (0: the revision alone). */
export function legend({ rejectAll = 0 } = {}) {
  const text = rejectAll > 1 ? `reject all ${rejectAll} proposals` : 'reject';
  for (const el of document.querySelectorAll('.key-reject')) el.textContent = text;
}
