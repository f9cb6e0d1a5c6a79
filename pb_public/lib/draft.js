// The reason and comment a reviewer wrote for a decision they then undid:
// shown again with the revision, so that nothing typed is lost.
import { $ } from './dom.js';

const drafts = new Map(); // revision id → {reason, comment}

/** keepDraft returns what to run when the decision on revision id is undone: it keeps draft ({reason, comment}). */
export function keepDraft(id, draft) {
  return () => {
    if (id) drafts.set(id, draft);
  };
}

/** restoreDraft fills the reason picker and comment box of revision id, drawn just now, with its kept draft. */
export function restoreDraft(id) {
  const draft = drafts.get(id);
  if (!draft) return;
  drafts.delete(id);
  if ($('#reason')) $('#reason').value = draft.reason;
  if ($('#comment')) $('#comment').value = draft.comment;
}
