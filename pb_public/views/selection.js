// The revisions selected in the queue for a group decision, across pages:
// ticked one by one or as a range (shift), shown in the list and counted
// in the selection bar. The queue (queue.js) draws the list and asks here.
import { $ } from '../lib/dom.js';

const state = {
  selected: new Map(), // id → item
  anchor: -1, // where a shift-selection started, in the list's items
  onFocusLost: () => {},
};

/** initSelection sets where the focus goes when the selection bar it was on hides (the list). */
export function initSelection({ onFocusLost }) {
  state.onFocusLost = onFocusLost;
}

/** isSelected tells whether revision id is selected. */
export function isSelected(id) {
  return state.selected.has(id);
}

/** selectedItems are the selected queue items, in the order selected. */
export function selectedItems() {
  return [...state.selected.values()];
}

/** toggle selects or unselects items[i] (range: every item from the last one toggled). */
export function toggle(items, i, { range = false } = {}) {
  const item = items[i];
  if (!item) return;
  if (range && state.anchor >= 0 && state.anchor < items.length) {
    const [a, b] = [Math.min(state.anchor, i), Math.max(state.anchor, i)];
    for (let j = a; j <= b; j++) state.selected.set(items[j].id, items[j]);
  } else if (state.selected.has(item.id)) {
    state.selected.delete(item.id);
  } else {
    state.selected.set(item.id, item);
  }
  state.anchor = i;
  renderSelection();
}

/** selectItem selects item (a queue item), without drawing. */
export function selectItem(item) {
  state.selected.set(item.id, item);
}

/** unselect drops revisions ids from the selection (decided ones), without drawing. */
export function unselect(ids) {
  for (const id of ids) state.selected.delete(id);
}

/** clearSelection unselects every revision. */
export function clearSelection() {
  state.selected.clear();
  state.anchor = -1;
  renderSelection();
}

/** renderSelection shows the selection in the list drawn and in the selection bar. */
export function renderSelection() {
  const n = state.selected.size;
  // note: the focus on a button of the bar being hidden (Clear) goes to the list, not to the page
  const lost = n === 0 && $('#selection').contains(document.activeElement);
  $('#selection').hidden = n === 0;
  if (lost) state.onFocusLost();
  $('#selection-count').textContent = `${n} selected`;
  for (const li of $('#queue-list').children) {
    const on = state.selected.has(li.querySelector('.item')?.dataset.id);
    li.classList.toggle('picked', on);
    const box = li.querySelector('.sel');
    if (box) box.checked = on;
  }
}
