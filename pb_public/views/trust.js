// The trust view: the trust policies, the audit queue and rollback, each a
// section of its own (policies.js, audits.js, rollback.js).
import * as api from '../lib/api.js';
import { h, message, replace } from '../lib/dom.js';
import { policiesSection } from './policies.js';
import { auditsSection } from './audits.js';
import { rollbackSection } from './rollback.js';

/** showTrust draws the trust view in body. */
export async function showTrust(body) {
  body.setAttribute('aria-busy', 'true');
  try {
    const [clients, templates] = await Promise.all([api.clients(), api.templates()]);
    replace(body, await policiesSection(clients, templates), await auditsSection(), rollbackSection(clients));
  } catch (err) {
    replace(body, h('p', { class: 'error', role: 'alert' }, `Could not load: ${message(err)}`));
  } finally {
    body.removeAttribute('aria-busy');
  }
}
