// A phone shows the list or the revision, one at a time. Opening a
// revision from the list is a history entry of its own, so that the
// phone's Back returns to the list rather than leaving the page.

/** narrow tells whether the screen shows one pane at a time (the style's phone width). */
export function narrow() {
  return matchMedia('(max-width: 760px)').matches;
}

/** phoneOpen names the revision opened (hash, "#queue/ID") in a new history entry after the list's. */
export function phoneOpen(hash) {
  history.replaceState(null, '', '#queue');
  history.pushState({ revisionPane: true }, '', hash);
}

/** phoneBack goes back to the list's history entry, when the revision has one; false otherwise. */
export function phoneBack() {
  if (!history.state?.revisionPane) return false;
  history.back();
  return true;
}
