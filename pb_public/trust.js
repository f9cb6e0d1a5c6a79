// The trust view: rollback (rollback.js).
import * as api from './api.js';
import { h, message, replace } from './dom.js';
import { rollbackSection } from './rollback.js';

/** showTrust draws the trust view in body. */
export async function showTrust(body) {
  body.setAttribute('aria-busy', 'true');
  try {
    const clients = await api.clients();
    replace(body, rollbackSection(clients));
  } catch (err) {
    replace(body, h('p', { class: 'error', role: 'alert' }, `Could not load: ${message(err)}`));
  } finally {
    body.removeAttribute('aria-busy');
  }
}
