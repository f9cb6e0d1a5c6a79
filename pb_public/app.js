// The reviewers' page: sign-in, the views (queue and overview) and the
// keyboard. Everything goes through PocketBase's auth and records API.
import * as api from './api.js';
import { $, message } from './dom.js';
import * as queue from './queue.js';
import * as revision from './revision.js';
import { showOverview } from './overview.js';

const views = ['loading', 'signin', 'queue-view', 'overview-view'];
let queueLoaded = false;

function showOnly(id) {
  for (const v of views) $(`#${v}`).hidden = v !== id;
}

function notify(text) {
  $('#notice').textContent = text;
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
  $('#who').hidden = false;
  $('#tabs').hidden = false;
  try {
    await queue.loadChoices();
  } catch (err) {
    notify(`Could not load the clients and templates: ${message(err)}`);
  }
  await route();
}

// route shows the view the address names: #overview, or the queue
// (#queue, or #queue/ID for one revision).
async function route() {
  if (!api.pb.authStore.isValid) return;
  const overview = location.hash.startsWith('#overview');
  $('#tab-queue').toggleAttribute('aria-current', !overview);
  $('#tab-overview').toggleAttribute('aria-current', overview);
  if (overview) {
    $('#tab-overview').setAttribute('aria-current', 'page');
    showOnly('overview-view');
    $('#keys').hidden = true;
    await showOverview();
    return;
  }
  $('#tab-queue').setAttribute('aria-current', 'page');
  showOnly('queue-view');
  $('#keys').hidden = false;
  if (!queueLoaded) {
    queueLoaded = true;
    const wanted = location.hash.match(/^#queue\/(\d+)$/)?.[1];
    await queue.reload({ keepId: wanted });
    if (wanted && queue.current()?.id !== wanted) await revision.show(wanted);
  }
}

function onSelect(item) {
  revision.show(item?.id ?? null);
  if (item) history.replaceState(null, '', `#queue/${item.id}`);
}

function onDecided(id, res, err) {
  const sku = queue.current()?.id === id ? ` (${queue.current().sku})` : '';
  if (err) {
    notify(`Revision #${id}${sku} was not saved: ${message(err)}`);
    queue.reload({ keepId: id });
    return;
  }
  const fields = res.status === 'accepted' && res.approvedFields?.length ? `: ${res.approvedFields.join(', ')}` : '';
  notify(`Revision #${id}${sku} ${res.status}${fields}.`);
  queue.decided(id);
}

// typing reports whether a key goes to a text field rather than to the page.
function typing(el) {
  return el instanceof HTMLElement &&
    (el.matches('input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), select, textarea') ||
      el.isContentEditable);
}

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  if ($('#queue-view').hidden || $('#confirm').open) return;
  if (typing(e.target)) {
    if (e.key === 'Escape') e.target.blur();
    return;
  }
  const actions = {
    j: () => queue.move(1),
    ArrowDown: () => queue.move(1),
    k: () => queue.move(-1),
    ArrowUp: () => queue.move(-1),
    a: () => revision.acceptAll(),
    s: () => revision.acceptSelected(),
    r: () => revision.reject(),
    '/': () => queue.focusSKU(),
  };
  let action = actions[e.key];
  if (!action && /^[1-5]$/.test(e.key)) action = () => revision.toggleField(Number(e.key));
  if (!action) return;
  e.preventDefault();
  action();
}

async function boot() {
  queue.initQueue({ onSelect });
  revision.initRevision({ onDecided });
  $('#signin-form').addEventListener('submit', signIn);
  $('#sign-out').addEventListener('click', () => {
    api.pb.authStore.clear();
    history.replaceState(null, '', location.pathname);
    showSignIn();
  });
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', route);
  if (await api.restore()) await enter();
  else showSignIn();
}

boot();
