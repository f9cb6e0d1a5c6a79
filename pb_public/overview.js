// The overview: acceptance rate per API client and per confidence band, as
// bar charts of the figures the server's overview route returns (those of
// GET /api/enrichment/acceptance-rate, without a window).
import * as api from './api.js';
import { $, h, message, replace } from './dom.js';

let seq = 0;

/** showOverview counts and draws the charts. */
export async function showOverview() {
  const body = $('#overview-body');
  const mine = ++seq;
  body.setAttribute('aria-busy', 'true');
  try {
    const o = await api.overview();
    if (mine !== seq) return;
    const rows = o.clients.map((c) => ({ client: c, m: c.metrics }));
    if (rows.length === 0) {
      replace(body, h('p', { class: 'muted' }, 'No API client has proposed anything yet.'));
      return;
    }
    const pick = h('select', { id: 'band-client' },
      h('option', { value: '' }, 'All clients'),
      rows.map((r) => h('option', { value: String(r.client.id) }, clientLabel(r.client))));
    const bandChart = h('div', { id: 'band-chart' });
    const drawBands = () => {
      const chosen = rows.find((r) => String(r.client.id) === pick.value);
      replace(bandChart, bandTable((chosen ? chosen.m : o.all).byConfidenceBand));
    };
    pick.addEventListener('change', drawBands);
    replace(body,
      h('section', { class: 'chart card', 'aria-labelledby': 'per-client' },
        h('h3', { id: 'per-client' }, 'Acceptance rate per API client'),
        clientTable(rows)),
      h('section', { class: 'chart card', 'aria-labelledby': 'per-band' },
        h('h3', { id: 'per-band' }, 'Acceptance rate per confidence band'),
        h('p', {}, h('label', { for: 'band-client' }, 'API client '), pick),
        bandChart));
    drawBands();
  } catch (err) {
    if (mine === seq) replace(body, h('p', { class: 'error', role: 'alert' }, `Could not count: ${message(err)}`));
  } finally {
    if (mine === seq) body.removeAttribute('aria-busy');
  }
}

function clientLabel(c) {
  return `${c.name || 'unnamed'} (#${c.id}${c.active ? '' : ', revoked'})`;
}

function percent(rate) {
  return `${(rate * 100).toFixed(2)} %`;
}

// bar is a horizontal bar of rate (0..1) with its number beside it.
function bar(rate, reviewed) {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${(rate * 100).toFixed(2)}%`;
  return h('div', { class: `bar-cell${reviewed ? '' : ' none'}` },
    h('div', { class: 'bar', 'aria-hidden': 'true' }, fill),
    h('span', { class: 'rate' }, reviewed ? percent(rate) : 'nothing reviewed'));
}

function clientTable(rows) {
  return h('table', { class: 'bars', id: 'client-chart' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'API client'), h('th', { scope: 'col', class: 'wide' }, 'Acceptance rate'),
      h('th', { scope: 'col', class: 'num' }, 'Accepted'), h('th', { scope: 'col', class: 'num' }, 'Reviewed'),
      h('th', { scope: 'col', class: 'num' }, 'Pending'))),
    h('tbody', {}, rows.map(({ client, m }) => h('tr', {
      dataset: { client: String(client.id), rate: String(m.acceptanceRate), accepted: String(m.accepted), reviewed: String(m.reviewed), pending: String(m.pending) },
    },
    h('th', { scope: 'row' }, clientLabel(client)),
    h('td', {}, bar(m.acceptanceRate, m.reviewed)),
    h('td', { class: 'num' }, String(m.accepted)),
    h('td', { class: 'num' }, String(m.reviewed)),
    h('td', { class: 'num' }, String(m.pending))))));
}

function bandTable(bands) {
  return h('table', { class: 'bars' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Confidence'), h('th', { scope: 'col', class: 'wide' }, 'Acceptance rate'),
      h('th', { scope: 'col', class: 'num' }, 'Accepted'), h('th', { scope: 'col', class: 'num' }, 'Reviewed'))),
    h('tbody', {}, bands.map((b) => h('tr', { class: `band-${b.band}`, dataset: { band: b.band, rate: String(b.acceptanceRate), accepted: String(b.accepted), reviewed: String(b.reviewed) } },
      h('th', { scope: 'row' }, b.band),
      h('td', {}, bar(b.acceptanceRate, b.reviewed)),
      h('td', { class: 'num' }, String(b.accepted)),
      h('td', { class: 'num' }, String(b.reviewed))))));
}
