// One action for a bad model version: when the queue is filtered by model
// or model version, the triage box offers to reject every pending revision
// the filters select, in one request (a group decision by the queue's
// filters); the server decides which revisions those are.
import * as api from '../lib/api.js';
import { $, h, message, replace } from '../lib/dom.js';

let shownFor = ''; // the filters the status speaks of

/** drawVersionReject shows the offer for the queue's filters f and its total, or hides it; done runs once rejected. */
export function drawVersionReject(f, total, done) {
  const box = $('#version-reject');
  if (!box) return;
  const { model = '', modelVersion = '' } = f.triage || {};
  const offered = (model || modelVersion) && total > 0;
  box.hidden = !offered;
  if (JSON.stringify(f) !== shownFor) $('#version-reject-status').textContent = '';
  if (!offered) return;
  const what = model ? `model ${[model, modelVersion].filter(Boolean).join(' ')}` : `model version ${modelVersion}`;
  const button = $('#version-reject-button');
  button.textContent = `Reject all ${total} of ${what}`;
  const select = $('#version-reject-reason');
  if (!select.options.length) {
    replace(select, api.reasons.map((r) => h('option', { value: r.value }, r.label)));
    select.value = api.reasons.some((r) => r.value === 'inaccurate') ? 'inaccurate' : api.reasons[0]?.value ?? '';
  }
  button.onclick = async () => {
    button.disabled = true;
    shownFor = JSON.stringify(f);
    $('#version-reject-status').textContent = `Rejecting ${total} of ${what}…`;
    try {
      const res = await api.rejectByFilter(f, select.value);
      $('#version-reject-status').textContent = `Rejected ${res.decided} of ${what}` +
        (res.refused ? `; ${res.refused} could not be rejected.` : '.');
      done();
    } catch (err) {
      $('#version-reject-status').textContent = `Not rejected: ${message(err)}`;
    } finally {
      button.disabled = false;
    }
  };
}
