// How a reviewer's claim on a revision shows where others see it: the
// queue marks the revisions another reviewer holds (views/together.js
// claims and releases them).
import { h } from './dom.js';

/** claimMark says in a queue item who else holds its revision; nothing when nobody else does. */
export function claimMark(claim) {
  if (!claim || claim.mine) return null;
  const who = claim.name || claim.email;
  return h('span', { class: 'claimed', title: `${who} (${claim.email}) is reviewing it` }, `${who} is reviewing · `);
}
