// The overview, from the server's overview route alone (one request): the
// catalog's completeness by day; the acceptance per API client (with the
// gaps each filled); per week over the last 12 weeks; by
// confidence (does a higher confidence mean a higher acceptance?); and the
// reasons given, with the figures GET /api/enrichment/acceptance-rate
// gives each client. Each chart has its table beside it, for people who
// do not read charts and for the tests.
import * as api from '../lib/api.js';
import { $, h, message, replace, svg } from '../lib/dom.js';

let seq = 0;

// Line colours, each at least 3:1 on white.
const palette = ['#2457c5', '#b42318', '#1f7a3a', '#9a6700', '#6d28d9', '#0e7490', '#be185d', '#4b5563'];

/** showOverview reads the overview and draws it. */
export async function showOverview() {
  const body = $('#overview-body');
  const mine = ++seq;
  body.setAttribute('aria-busy', 'true');
  try {
    const o = await api.overview();
    if (mine !== seq) return;
    if (o.clients.length === 0) {
      replace(body, h('p', { class: 'muted' }, 'No API client has proposed anything yet.'));
      return;
    }
    const pick = h('select', { id: 'band-client' },
      h('option', { value: '' }, 'All clients'),
      o.clients.map((c) => h('option', { value: String(c.id) }, clientLabel(c))));
    const detail = h('div', { id: 'detail' });
    const drawDetail = () => {
      const chosen = o.clients.find((c) => String(c.id) === pick.value);
      replace(detail, detailCharts(chosen ? chosen.metrics : o.all, chosen ? chosen.calibration : o.calibration));
    };
    pick.addEventListener('change', drawDetail);
    replace(body,
      summary(o.all, o.completeness),
      h('section', { class: 'chart card', 'aria-labelledby': 'completeness-title' },
        h('h3', { id: 'completeness-title' }, 'Completeness of the catalog, by day'),
        completenessChart(o.completeness)),
      h('section', { class: 'chart card', 'aria-labelledby': 'per-client' },
        h('h3', { id: 'per-client' }, 'Acceptance rate per API client'),
        clientTable(o.clients)),
      h('section', { class: 'chart card', 'aria-labelledby': 'per-week' },
        h('h3', { id: 'per-week' }, 'Acceptance per week, last 12 weeks'),
        weeklyChart(o)),
      h('section', { class: 'chart card', 'aria-labelledby': 'by-confidence' },
        h('h3', { id: 'by-confidence' }, 'By confidence, and the reasons given'),
        h('p', { class: 'picker' }, h('label', { for: 'band-client' }, 'API client '), pick),
        detail));
    drawDetail();
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

function summary(m, c) {
  const tile = (label, value) => h('div', { class: 'tile' }, h('span', { class: 'value' }, value), h('span', { class: 'label' }, label));
  return h('div', { class: 'tiles', id: 'summary' },
    tile(`complete, of ${c.products} products`, `${c.completeness.toFixed(1)} %`),
    tile('gaps filled by vendors', String(m.slotsFilled)),
    tile('accepted of reviewed', m.reviewed ? percent(m.acceptanceRate) : '–'),
    tile('reviewed', String(m.reviewed)),
    tile('pending', String(m.pending)),
    tile('superseded', String(m.superseded)),
    tile('expired', String(m.expired)));
}

// bar is a horizontal bar of share (0..1) with its text beside it.
function bar(share, text, none = false) {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${(Math.min(1, share) * 100).toFixed(2)}%`;
  return h('div', { class: `bar-cell${none ? ' none' : ''}` },
    h('div', { class: 'bar', 'aria-hidden': 'true' }, fill),
    h('span', { class: 'rate' }, text));
}

function clientTable(clients) {
  // note: the gaps each client filled, as bars against the most any filled
  const mostFilled = Math.max(1, ...clients.map((c) => c.metrics.slotsFilled));
  return h('table', { class: 'bars', id: 'client-chart' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'API client'), h('th', { scope: 'col', class: 'wide' }, 'Acceptance rate'),
      h('th', { scope: 'col', class: 'num opt' }, 'Accepted'), h('th', { scope: 'col', class: 'num' }, 'Reviewed'),
      h('th', { scope: 'col', class: 'num opt' }, 'Pending'), h('th', { scope: 'col', class: 'opt' }, 'Gaps filled'))),
    h('tbody', {}, clients.map(({ id, metrics: m, ...c }) => h('tr', {
      dataset: { client: String(id), rate: String(m.acceptanceRate), accepted: String(m.accepted), reviewed: String(m.reviewed), pending: String(m.pending) },
    },
    h('th', { scope: 'row' }, clientLabel({ id, ...c })),
    h('td', {}, bar(m.acceptanceRate, m.reviewed ? percent(m.acceptanceRate) : 'nothing reviewed', !m.reviewed)),
    h('td', { class: 'num opt' }, String(m.accepted)),
    h('td', { class: 'num' }, String(m.reviewed)),
    h('td', { class: 'num opt' }, String(m.pending)),
    h('td', { class: 'opt', dataset: { slotsFilled: String(m.slotsFilled) } },
      bar(m.slotsFilled / mostFilled, String(m.slotsFilled), !m.slotsFilled))))));
}

// completenessChart draws the catalog's mean completeness per day (a day
// the job did not measure has no point), with its table beside it.
function completenessChart(c) {
  const days = c.history;
  const W = chartWidth();
  const H = 160;
  const pad = { l: 44, r: 28, t: 12, b: 34 };
  const x = (i) => pad.l + (days.length < 2 ? (W - pad.l - pad.r) / 2 : (i * (W - pad.l - pad.r)) / (days.length - 1));
  const y = (pct) => pad.t + (1 - pct / 100) * (H - pad.t - pad.b);
  const grid = [0, 50, 100].map((p) => [
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(p), y2: y(p), class: 'grid' }),
    svg('text', { x: pad.l - 6, y: y(p) + 4, 'text-anchor': 'end', class: 'axis' }, `${p} %`),
  ]);
  const points = days.map((d, i) => [x(i), y(d.completeness), d]);
  const ends = days.length ? [0, days.length - 1].map((i) => svg('text', {
    x: x(i), y: H - 12, 'text-anchor': 'middle', class: 'axis',
  }, shortDate(days[i].day))) : [];
  return h('figure', { class: 'plot' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'completeness-title', id: 'completeness-chart' }, grid, ends,
      points.length > 1 ? svg('polyline', {
        points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' '), fill: 'none', stroke: palette[0], 'stroke-width': 2,
      }) : null,
      points.map(([px, py, d]) => svg('circle', { cx: px, cy: py, r: 3.5, fill: palette[0] },
        svg('title', {}, `${d.day}: ${d.completeness.toFixed(1)} % of ${d.products} products`)))),
    h('details', {}, h('summary', {}, 'As a table'), h('div', scrollRegion('Completeness by day, as a table'),
      h('table', { class: 'data', id: 'completeness-table' },
        h('thead', {}, h('tr', {}, ['Day', 'Completeness', 'Products'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, days.map((d) => h('tr', { dataset: { day: d.day, completeness: String(d.completeness) } },
          h('th', { scope: 'row' }, d.day), h('td', { class: 'num' }, `${d.completeness.toFixed(1)} %`),
          h('td', { class: 'num' }, String(d.products)))))))));
}

// weeklyChart draws one line per client (and all together, dashed) of the
// acceptance rate per week; a week with nothing reviewed leaves a gap.
function weeklyChart(o) {
  const series = [
    { label: 'All clients', weekly: o.weekly, color: '#1d2330', dash: '5 4', id: 'all' },
    ...o.clients.map((c, i) => ({ label: clientLabel(c), weekly: c.weekly, color: palette[i % palette.length], id: String(c.id) })),
  ];
  const weeks = o.weekly.map((w) => w.week);
  const W = chartWidth();
  const H = 220;
  const pad = { l: 44, r: 28, t: 12, b: 34 };
  const x = (i) => pad.l + (i * (W - pad.l - pad.r)) / Math.max(1, weeks.length - 1);
  const y = (rate) => pad.t + (1 - rate) * (H - pad.t - pad.b);
  const grid = [0, 0.5, 1].map((r) => [
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(r), y2: y(r), class: 'grid' }),
    svg('text', { x: pad.l - 6, y: y(r) + 4, 'text-anchor': 'end', class: 'axis' }, `${r * 100} %`),
  ]);
  const ticks = weeks.map((w, i) => (i % 2 === weeks.length % 2 ? null
    : svg('text', { x: x(i), y: H - 12, 'text-anchor': 'middle', class: 'axis' }, shortDate(w))));
  // note: the line joins the weeks that have decisions; a week without any
  // has no point of its own
  const lines = series.map((s) => {
    const points = s.weekly.map((w, i) => (w.reviewed ? [x(i), y(w.acceptanceRate), w] : null)).filter(Boolean);
    return svg('g', { class: 'series', 'data-series': s.id },
      points.length > 1 ? svg('polyline', {
        points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' '),
        fill: 'none', stroke: s.color, 'stroke-width': s.id === 'all' ? 3 : 2, 'stroke-dasharray': s.dash,
      }) : null,
      points.map(([px, py, w]) => svg('circle', { cx: px, cy: py, r: 3.5, fill: s.color },
        svg('title', {}, `${s.label}, week of ${w.week}: ${percent(w.acceptanceRate)} of ${w.reviewed}`))));
  });
  return h('figure', { class: 'plot' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'per-week', id: 'weekly-chart' }, grid, ticks, lines),
    h('figcaption', { class: 'legend' }, series.map((s) => h('span', { class: 'key' },
      h('span', { class: `swatch${s.dash ? ' dashed' : ''}`, style: `--c: ${s.color}` }), s.label))),
    h('details', {}, h('summary', {}, 'As a table'), weeklyTable(series, weeks)));
}

// chartWidth is the width a chart gets on this screen, so that its text
// is drawn at its own size rather than scaled.
function chartWidth() {
  return Math.max(300, Math.min(1000, ($('#overview-body').clientWidth || 640) - 48));
}

function shortDate(day) {
  const d = new Date(`${day}T00:00:00Z`);
  return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

// scrollRegion are the attributes of a table's box that scrolls sideways
// on a narrow screen: in the Tab order, with a name, so that the keyboard
// can scroll it too (axe: scrollable-region-focusable).
function scrollRegion(name) {
  return { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': name };
}

function weeklyTable(series, weeks) {
  return h('div', scrollRegion('Acceptance per week, as a table'), h('table', { class: 'data', id: 'weekly-table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Week of'), series.map((s) => h('th', { scope: 'col', class: 'num' }, s.label)))),
    h('tbody', {}, weeks.map((w, i) => h('tr', { dataset: { week: w } },
      h('th', { scope: 'row' }, w),
      series.map((s) => {
        const m = s.weekly[i];
        return h('td', { class: 'num', dataset: { series: s.id, reviewed: String(m.reviewed), accepted: String(m.accepted) } },
          m.reviewed ? `${percent(m.acceptanceRate)} of ${m.reviewed}` : '–');
      }))))));
}

// detailCharts: the calibration (acceptance per confidence bucket against
// the diagonal a calibrated client would follow), the bands and the reasons.
function detailCharts(m, calibration) {
  return [
    h('h4', {}, 'Does a higher confidence mean a higher acceptance?'),
    calibrationChart(calibration),
    h('h4', {}, 'Per confidence band'),
    h('div', { id: 'band-chart' }, bandTable(m.byConfidenceBand)),
    h('h4', {}, 'Reasons given'),
    reasonsTable(m.byReason),
  ];
}

function calibrationChart(buckets) {
  const W = chartWidth();
  const H = 220;
  const pad = { l: 44, r: 12, t: 20, b: 34 };
  const bw = (W - pad.l - pad.r) / buckets.length;
  const y = (rate) => pad.t + (1 - rate) * (H - pad.t - pad.b);
  const bars = buckets.map((b, i) => {
    const x = pad.l + i * bw;
    return svg('g', { class: 'bucket' },
      b.reviewed ? svg('rect', { x: x + 4, y: y(b.acceptanceRate), width: bw - 8, height: y(0) - y(b.acceptanceRate), class: 'fill' },
        svg('title', {}, `Confidence ${b.from}–${b.to}: ${percent(b.acceptanceRate)} of ${b.reviewed}`)) : null,
      svg('text', { x: x + bw / 2, y: H - 12, 'text-anchor': 'middle', class: 'axis' }, String(b.from)),
      svg('text', { x: x + bw / 2, y: b.reviewed ? y(b.acceptanceRate) - 4 : y(0) - 4, 'text-anchor': 'middle', class: 'count' },
        b.reviewed ? String(b.reviewed) : ''));
  });
  const grid = [0, 0.5, 1].map((r) => [
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(r), y2: y(r), class: 'grid' }),
    svg('text', { x: pad.l - 6, y: y(r) + 4, 'text-anchor': 'end', class: 'axis' }, `${r * 100} %`),
  ]);
  return h('figure', { class: 'plot' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Acceptance rate per confidence bucket', id: 'calibration-chart' },
      grid, bars,
      svg('line', { x1: pad.l, y1: y(0.05), x2: W - pad.r, y2: y(0.95), class: 'diagonal' })),
    h('figcaption', { class: 'legend small' },
      'Bars: accepted ÷ reviewed per ten points of confidence (the number above a bar is how many were reviewed). ',
      'The dashed diagonal is where a client whose confidence meant its chance of acceptance would be.'),
    h('details', {}, h('summary', {}, 'As a table'), h('div', scrollRegion('Acceptance per confidence bucket, as a table'), h('table', { class: 'data', id: 'calibration-table' },
      h('thead', {}, h('tr', {}, ['Confidence', 'Reviewed', 'Accepted', 'Rate'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, buckets.map((b) => h('tr', { dataset: { from: String(b.from), reviewed: String(b.reviewed), accepted: String(b.accepted) } },
        h('th', { scope: 'row' }, `${b.from}–${b.to}`), h('td', { class: 'num' }, String(b.reviewed)),
        h('td', { class: 'num' }, String(b.accepted)), h('td', { class: 'num' }, b.reviewed ? percent(b.acceptanceRate) : '–'))))))));
}

function bandTable(bands) {
  return h('table', { class: 'bars' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Confidence'), h('th', { scope: 'col', class: 'wide' }, 'Acceptance rate'),
      h('th', { scope: 'col', class: 'num opt' }, 'Accepted'), h('th', { scope: 'col', class: 'num' }, 'Reviewed'))),
    h('tbody', {}, bands.map((b) => h('tr', { class: `band-${b.band}`, dataset: { band: b.band, rate: String(b.acceptanceRate), accepted: String(b.accepted), reviewed: String(b.reviewed) } },
      h('th', { scope: 'row' }, api.bandLabel(b.band)),
      h('td', {}, bar(b.acceptanceRate, b.reviewed ? percent(b.acceptanceRate) : 'nothing reviewed', !b.reviewed)),
      h('td', { class: 'num opt' }, String(b.accepted)),
      h('td', { class: 'num' }, String(b.reviewed))))));
}

function reasonsTable(reasons) {
  const total = reasons.reduce((n, r) => n + r.count, 0);
  const most = Math.max(1, ...reasons.map((r) => r.count));
  return h('table', { class: 'bars', id: 'reasons-chart' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Reason'), h('th', { scope: 'col', class: 'wide' }, 'Decisions with it'))),
    h('tbody', {}, reasons.map((r) => h('tr', { dataset: { reason: r.reason, count: String(r.count) } },
      h('th', { scope: 'row' }, api.reasonLabel(r.reason)),
      h('td', {}, bar(r.count / most, total ? `${r.count} (${Math.round((100 * r.count) / total)} %)` : '0', !r.count))))));
}
