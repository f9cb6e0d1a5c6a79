// Decisions are final on the server, so the page holds each one for a few
// seconds, with an Undo, before sending it; leaving the page sends what is
// held at once. A group (several revisions) goes as one request to the
// group decision route; a single decision as a records API update. The
// notice at the foot of the revision view says what is held, what was sent
// and what failed.
import * as api from './api.js';
import { $, h, message, replace } from './dom.js';

/**
 * holdMs is how long a decision waits: 5 s, or what localStorage
 * "enrichment.holdMs" says (the browser tests shorten it; 0 sends at once).
 */
export const holdMs = (() => {
  const set = Number(localStorage.getItem('enrichment.holdMs'));
  return localStorage.getItem('enrichment.holdMs') !== null && Number.isFinite(set) && set >= 0 ? set : 5000;
})();

const entries = []; // held or being sent, oldest first
let ticker = 0;
let said = { text: '', error: false };

/**
 * hold queues a group of decisions ({id, body}) to be sent after holdMs,
 * in order. text says what they do. stopOnFailure: a refused decision
 * stops the rest (they are reported as not sent). precheck(), when given,
 * runs just before sending: a sentence it returns says why nothing is
 * sent. onUndo() runs when the reviewer takes them back, onDone(results)
 * once sent, with each decision's {id, res} or {id, err} or {id, skipped}.
 */
export function hold({ text, decisions, stopOnFailure = false, precheck = null, onUndo = () => {}, onDone = () => {} }) {
  const entry = { text, decisions, stopOnFailure, precheck, onUndo, onDone, state: 'held', due: Date.now() + holdMs };
  entries.push(entry);
  entry.timer = setTimeout(() => send(entry), holdMs);
  render();
}

/** undo takes back the latest decision still held; false when there is none. */
export function undo() {
  const entry = entries.findLast((e) => e.state === 'held');
  if (!entry) return false;
  clearTimeout(entry.timer);
  entries.splice(entries.indexOf(entry), 1);
  say(`Undone: ${entry.text}. Nothing was sent.`);
  entry.onUndo();
  return true;
}

/** excluded are the ids of revisions held or being sent: the queue leaves them out. */
export function excluded() {
  return entries.flatMap((e) => e.decisions.map((d) => d.id));
}

/** busy tells whether decisions are held or being sent. */
export function busy() {
  return entries.length > 0;
}

/**
 * flush sends every held decision now and waits for them all. leaving: the
 * page is being left, so every request starts at once, in this task, and
 * outlives the page (the answers are still reported if the page stays, or
 * comes back from the browser's back/forward cache).
 */
export async function flush({ leaving = false } = {}) {
  if (leaving) {
    // note: a group being sent one decision after another (hiding the tab
    // flushed it) would stop at its first once the page is gone, so every
    // decision not started yet starts now
    for (const e of entries) {
      if (grouped(e)) requestGroup(e).catch(() => {});
      else for (const d of e.decisions) request(d).catch(() => {});
      send(e, { checked: true });
    }
    return;
  }
  await Promise.all(entries.map((e) => send(e)));
}

/** request sends decision d once, whoever asks first: the send loop or a page being left. */
function request(d) {
  d.request ??= api.decide(d.id, d.body, { keepalive: true });
  return d.request;
}

// grouped tells whether an entry goes as one group decision: it decides
// more than one revision.
function grouped(entry) {
  return entry.decisions.length > 1;
}

/** requestGroup sends a group's decisions in one request, once, whoever asks first. */
function requestGroup(entry) {
  entry.request ??= api.decideGroup(entry.decisions.map((d) => ({ id: d.id, ...d.body })),
    { stopOnFailure: entry.stopOnFailure, keepalive: true });
  return entry.request;
}

// refusal turns a group decision's refusal ({status, message, data}) into
// an error as the SDK throws it, for message().
function refusal(error) {
  return Object.assign(new Error(error.message), { status: error.status, response: error });
}

// sendGroup sends a group in one request: one result per decision, as the
// send loop makes them.
async function sendGroup(entry) {
  try {
    const answer = await requestGroup(entry);
    return answer.results.map((r) => {
      if (r.outcome === 'decided') return { id: r.id, res: r.revision };
      if (r.outcome === 'refused') return { id: r.id, err: refusal(r.error) };
      return { id: r.id, skipped: true };
    });
  } catch (err) {
    return entry.decisions.map((d) => ({ id: d.id, err }));
  }
}

// send sends a held entry's decisions, after its precheck unless checked;
// for an entry already being sent, it returns the same promise.
function send(entry, { checked = false } = {}) {
  if (entry.state !== 'held') return entry.sent;
  entry.state = 'sending';
  clearTimeout(entry.timer);
  render();
  entry.sent = (async () => {
    const results = [];
    let stopped = false;
    let refused = null;
    try {
      refused = entry.precheck && !checked ? await entry.precheck() : null;
    } catch (err) {
      refused = `Could not check the proposals before sending: ${message(err)}. Nothing was sent.`;
    }
    // note: once leaving the page started the requests, they are sent
    if (refused && !entry.request && !entry.decisions.some((d) => d.request)) {
      entries.splice(entries.indexOf(entry), 1);
      say(refused, { error: true });
      const skipped = entry.decisions.map((d) => ({ id: d.id, skipped: true }));
      entry.onDone(skipped);
      return skipped;
    }
    if (grouped(entry)) {
      results.push(...await sendGroup(entry));
    } else {
      for (const d of entry.decisions) {
        if (stopped && !d.request) {
          results.push({ id: d.id, skipped: true });
          continue;
        }
        try {
          results.push({ id: d.id, res: await request(d) });
        } catch (err) {
          results.push({ id: d.id, err });
          stopped = entry.stopOnFailure;
        }
      }
    }
    entries.splice(entries.indexOf(entry), 1);
    const failed = results.filter((r) => r.err);
    if (failed.length === 0) say(`Sent: ${entry.text}.`);
    else if (entry.decisions.length === 1) say(`Not saved: ${entry.text}: ${message(failed[0].err)}`, { error: true });
    else {
      const skipped = results.filter((r) => r.skipped).length;
      say(`${entry.text}: ${results.length - failed.length - skipped} of ${results.length} saved; ` +
        `${failed.map((r) => `#${r.id} refused (${message(r.err)})`).join('; ')}` +
        (skipped ? `; ${skipped} not sent` : '') + '.', { error: true });
    }
    entry.onDone(results);
    return results;
  })();
  return entry.sent;
}

/** say shows a message in the notice (an error stays until the next one). */
export function say(text, { error = false } = {}) {
  said = { text, error };
  render();
}

// render draws the notice: the last message, then what is held with its
// Undo. note: the countdown is aria-hidden, so that screen readers hear
// each change of state once rather than every second
function render() {
  const box = $('#notice');
  if (!box) return;
  const held = entries.filter((e) => e.state === 'held');
  const sending = entries.filter((e) => e.state === 'sending');
  const last = held.at(-1);
  const parts = [];
  if (last) {
    const more = held.length > 1 ? ` (and ${held.length - 1} more held)` : '';
    parts.push(h('p', { class: 'held' },
      h('span', { class: 'what' }, `Held: ${last.text}${more}. `),
      h('span', { class: 'countdown', 'aria-hidden': 'true' }, countdown(last)),
      ' ',
      h('button', { type: 'button', id: 'undo', onclick: () => undo() }, 'Undo ', h('kbd', {}, 'u'))));
  } else if (sending.length) {
    parts.push(h('p', { class: 'held' }, `Sending ${sending.reduce((n, e) => n + e.decisions.length, 0)}…`));
  }
  if (said.text) parts.unshift(h('p', { class: said.error ? 'said error' : 'said' }, said.text));
  replace(box, parts);
  clearInterval(ticker);
  if (last) {
    ticker = setInterval(() => {
      const c = box.querySelector('.countdown');
      if (c) c.textContent = countdown(last);
    }, 250);
  }
}

function countdown(entry) {
  const s = Math.max(0, Math.ceil((entry.due - Date.now()) / 1000));
  return `Sending in ${s} s.`;
}

// note: leaving the page (or hiding it, after which a phone may discard
// it) sends what is held. Leaving sends from beforeunload, while the page
// is still whole, and again from pagehide, which phones fire where they do
// not fire beforeunload: sent from pagehide alone, the held decisions were
// lost in about one leave in five in Chromium, which runs pagehide as it
// puts the page into its back/forward cache (browser/leave_test.go)
window.addEventListener('beforeunload', () => flush({ leaving: true }));
window.addEventListener('pagehide', () => flush({ leaving: true }));
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') flush();
});
