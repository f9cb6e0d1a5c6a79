// The reviewers' page: sign-in, the views (queue and overview), the address
// of the revision shown, decisions held for an undo, and the keyboard.
// Everything goes through PocketBase's auth and records API and the
// reviewers' routes (lib/api.js); the vocabulary is read once, at sign-in.
// At a load with a remembered sign-in, the first view's reads are sent at
// once (api.readAhead); the live updates start once the queue is drawn, and
// the other views' code is read when they are first shown.
import * as api from './lib/api.js';
import * as more from './views/more.js';
import { $, message, warmDates } from './lib/dom.js';
import * as queue from './views/queue.js';
import * as revision from './views/revision.js';
import * as outbox from './lib/outbox.js';
import * as group from './views/group.js';
import * as shortcuts from './lib/shortcuts.js';
import * as bulk from './views/bulk.js';
import { initZoom } from './lib/zoom.js';
import { narrow, phoneBack, phoneOpen } from './lib/phone.js';
import * as together from './views/together.js';

const views = ['loading', 'signin', 'queue-view', 'overview-view', ...more.viewIds];
let queueLoaded = false;
let shows = 0; // revisions shown so far (afterDrawn)
let routes = 0; // views routed to so far: a first load outlived by another route shows nothing

function showOnly(id) {
  for (const v of views) $(`#${v}`).hidden = v !== id;
}

function showSignIn() {
  queueLoaded = false;
  showOnly('signin');
  $('#tabs').hidden = true;
  $('#who').hidden = true;
  $('#keys').hidden = true;
  $('#email').focus();
}

async function signIn(e) {
  e.preventDefault();
  const email = $('#email').value.trim();
  const password = $('#password').value;
  const error = $('#signin-error');
  error.textContent = '';
  if (!email || !password) {
    error.textContent = 'Enter your email and password.';
    return;
  }
  $('#signin-submit').disabled = true;
  try {
    await api.signIn(email, password);
    $('#password').value = '';
    await enter();
  } catch (err) {
    error.textContent = err.status === 400 ? 'Wrong email or password.' : `Could not sign in: ${message(err)}`;
  } finally {
    $('#signin-submit').disabled = false;
  }
}

async function enter() {
  const who = api.pb.authStore.record;
  const org = who.expand?.organization?.name;
  $('#who-name').textContent = api.isSuperuser()
    ? `${who.email} · superuser, every organization`
    : `${who.email}${org ? ` · ${org}` : ''}`;
  $('#who-name').title = $('#who-name').textContent;
  $('#who').hidden = false;
  $('#tabs').hidden = false;
  try {
    await api.loadVocabulary();
  } catch (err) {
    outbox.say(`Could not load the page's vocabulary: ${message(err)}`, { error: true });
    return;
  }
  group.drawLimits();
  try {
    await queue.loadChoices();
  } catch (err) {
    outbox.say(`Could not load the clients and templates: ${message(err)}`, { error: true });
  }
  together.drawFilters();
  await route();
  api.forgetAhead();
  // note: the live updates start once the first view is drawn; what changed
  // meanwhile is read again once they are on (together.start)
  whenIdle(() => together.start());
  // note: the sign-in form is gone; the keyboard starts in the queue
  const at = document.activeElement;
  if (!$('#queue-view').hidden && (!at || at === document.body || !at.checkVisibility())) queue.focusList();
}

// firstAsk is what the queue's first load will ask, with the orders known;
// null when the address names another view.
function firstAsk(known) {
  if (location.hash.startsWith('#overview') || more.named(location.hash)) return null;
  return queue.firstAsk(known, linked());
}

// linked is the revision the address names (#queue/ID), if any.
function linked() {
  return location.hash.match(/^#queue\/(\d+)$/)?.[1] ?? null;
}

// route shows the view the address names: #overview, or the queue
// (#queue, or #queue/ID for one revision).
async function route() {
  if (!api.pb.authStore.isValid) return;
  const mine = ++routes;
  if (await more.route(showOnly)) return;
  const overview = location.hash.startsWith('#overview');
  $('#tab-queue').toggleAttribute('aria-current', !overview);
  $('#tab-overview').toggleAttribute('aria-current', overview);
  if (overview) {
    $('#tab-overview').setAttribute('aria-current', 'page');
    showOnly('overview-view');
    shows++; // note: no claim waiting for a revision to be drawn is taken now
    together.hold(null);
    $('#keys').hidden = true;
    let overviewModule;
    try {
      overviewModule = await import('./views/overview.js');
    } catch (err) {
      outbox.say(`Could not load the overview: ${message(err)}`, { error: true });
      return;
    }
    await overviewModule.showOverview();
    return;
  }
  $('#tab-queue').setAttribute('aria-current', 'page');
  $('#keys').hidden = false;
  const wanted = linked();
  if (!queueLoaded) {
    queueLoaded = true;
    // note: a linked revision is shown on the page of the queue that holds
    // it. The view is shown once its first page is drawn, in the same task,
    // so that no frame shows it empty and then moves what is below the
    // list as the list comes (a layout shift); "Loading…" is shown until then.
    showOnly('loading');
    if (wanted) await queue.open(wanted, showAlone);
    else await queue.reload();
    // note: not over the sign-in form, nor over a view routed to meanwhile
    if (mine === routes && api.pb.authStore.isValid) showOnly('queue-view');
    return;
  }
  showOnly('queue-view');
  if (!wanted && narrow() && $('#queue-view').dataset.pane === 'revision') {
    pane('list'); // note: Back from a revision on a phone
    queue.focusList();
  } else if (wanted && wanted !== revision.showing()) {
    await queue.open(wanted, showAlone);
  }
}

// onSelect shows the revision chosen in the queue and names it in the address.
function onSelect(item, { open = false } = {}) {
  const drawn = revision.show(item?.id ?? null, { product: item?.product, template: item?.expand?.product?.attributeTemplate });
  // note: the browser's date formats take tens of ms to load at their first
  // use; the first revision's header needs them, so they load while its
  // reads are under way, in a task of their own
  setTimeout(warmDates);
  // note: on a phone, opening a revision from the list is a history
  // entry, so that Back returns to the list rather than leaving the page
  const entry = item && open && narrow() && $('#queue-view').dataset.pane === 'list';
  if (entry) phoneOpen(`#queue/${item.id}`);
  else if (item) history.replaceState(history.state, '', `#queue/${item.id}`);
  if (item && open) pane('revision');
  afterDrawn(drawn, () => {
    together.hold(revision.claimable(item?.id)); // note: a decided revision is not claimed (409)
    if (item) revision.prefetch(queue.next());
  });
}

// showAlone shows a revision that the queue does not list (decided, or
// filtered out); the address keeps naming it.
function showAlone(id) {
  afterDrawn(revision.show(id), () => together.hold(revision.claimable(id)));
  pane('revision');
}

/**
 * afterDrawn runs what a revision shown does not need (its claim, the
 * next one read ahead) once it is drawn, so that the reviewer sees it
 * first; not when another was shown meanwhile.
 */
function afterDrawn(drawn, work) {
  const mine = ++shows;
  drawn.then(() => setTimeout(() => {
    if (mine === shows) work();
  }));
}

// whenIdle runs f once the browser has drawn what it was doing (within 100 ms).
const whenIdle = window.requestIdleCallback
  ? (f) => requestIdleCallback(f, { timeout: 100 })
  : (f) => setTimeout(f, 1);

// pane chooses what a narrow screen shows: the list or the revision.
function pane(which) {
  $('#queue-view').dataset.pane = which;
}

/**
 * hold is every decision's way out: the revisions leave the queue at once,
 * the next one is shown, and the decisions are sent after the undo delay.
 */
function hold({ text, decisions, stopOnFailure = false, precheck = null, onUndo, onDone }) {
  const ids = decisions.map((d) => d.id);
  const shown = revision.shown()?.id;
  outbox.hold({
    text, decisions, stopOnFailure, precheck,
    onUndo: () => {
      onUndo?.();
      if (ids.includes(shown)) queue.open(shown, showAlone);
      else queue.reload();
    },
    onDone: (results) => {
      onDone?.(results);
      if (results.some((r) => !r.res)) queue.reload(); // what was not saved comes back
    },
  });
  queue.decided(ids);
}

// typing reports whether a key goes to a text field rather than to the page.
function typing(el) {
  return el instanceof HTMLElement &&
    (el.matches('input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), select, textarea') ||
      el.isContentEditable);
}

// leaveField takes the keyboard out of a text field (Escape): to the
// revision from its reason or comment, to the list from a filter.
function leaveField(el) {
  if ($('#revision').contains(el)) $('#revision-body').focus();
  else if ($('.queue').contains(el)) queue.focusList();
  else el.blur();
}

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  if ($('#queue-view').hidden || $('#confirm').open) return;
  if (typing(e.target)) {
    if (e.key === 'Escape') leaveField(e.target);
    return;
  }
  // note: arrows move within a group of choices
  if (e.target.matches?.('input[type=radio]') && e.key.startsWith('Arrow')) return;
  const extend = e.shiftKey;
  const actions = {
    j: () => queue.move(1), J: () => queue.move(1, { extend: true }),
    ArrowDown: () => queue.move(1, { extend }),
    k: () => queue.move(-1), K: () => queue.move(-1, { extend: true }),
    ArrowUp: () => queue.move(-1, { extend }),
    x: () => queue.toggleCurrent(),
    a: () => revision.acceptAll(),
    s: () => revision.acceptSelected(),
    r: () => revision.reject(),
    t: () => revision.toggleAlone(),
    e: () => revision.focusReason(),
    c: () => revision.focusComment(),
    u: () => outbox.undo(),
    '/': () => queue.focusSKU(),
    '?': () => shortcuts.show(),
  };
  let action = actions[e.key];
  if (!action && /^[1-5]$/.test(e.key)) action = () => revision.toggleField(Number(e.key));
  if (!action) return;
  e.preventDefault();
  // note: a held key repeats; only moves repeat, never a decision
  if (e.repeat && !/^(j|k|J|K|ArrowDown|ArrowUp)$/.test(e.key)) return;
  action();
}

async function boot() {
  // note: the first view's reads leave before anything else is done
  if (api.pb.authStore.isValid) api.readAhead(firstAsk);
  // note: the header drawn as signed in from the start (index.html) is the
  // page's to show or hide from now on
  if (document.documentElement.classList.contains('remembered')) {
    $('#tabs').hidden = false;
    $('#who').hidden = false;
    document.documentElement.classList.remove('remembered');
  }
  queue.initQueue({
    onSelect,
    onGroup: (status, items) => group.decideSelected(status, items),
    // note: only a revision other than the one drawn, which stays as it is
    onAhead: (item) => item.id !== revision.showing() && revision.prefetch(item),
  });
  revision.initRevision({ onDecide: hold });
  group.initGroup({ onDecide: hold });
  together.initTogether();
  $('#signin-form').addEventListener('submit', signIn);
  $('#sign-out').addEventListener('click', async () => {
    await outbox.flush(); // note: held decisions are sent with the reviewer's sign-in
    queue.stop(); // note: no reload waits to run without the sign-in
    await together.stop();
    api.pb.authStore.clear();
    history.replaceState(null, '', location.pathname);
    showSignIn();
  });
  document.addEventListener('keydown', onKey);
  document.addEventListener('queue:back', () => {
    if (phoneBack()) return; // note: the history entry's Back shows the list
    pane('list');
    queue.focusList();
  });
  document.addEventListener('queue:move', (e) => queue.move(e.detail));
  shortcuts.initShortcuts();
  bulk.initBulk({ onDecide: hold });
  initZoom();
  window.addEventListener('hashchange', route);
  if (await api.restore()) await enter();
  else showSignIn();
}

boot();
