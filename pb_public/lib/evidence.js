// What came with a proposal besides its values: the issues the checks
// found when it was submitted, the vendor's sources (a link and a quote
// for a field or one attribute), and the model that made it. Each is shown
// beside the field it concerns. The server never opens a source; a link
// opens in a new tab without telling the site where it came from.
import { h } from './dom.js';
import { fieldLabels } from './api.js';
import { attributeOutcome } from './review-state.js';

const list = (v) => (Array.isArray(v) ? v : []);

// concerns tells whether a place ("name", "attributes.2", "attributes.Color") is of field.
function concerns(place, field) {
  return place === field || String(place).startsWith(`${field}.`);
}

/** modelLine names the model (and version) that made rev's proposal, or null when it did not say. */
export function modelLine(rev) {
  const m = rev.model;
  if (!m || typeof m !== 'object' || !m.name) return null;
  return h('p', { class: 'model small', id: 'rev-model' }, 'Made by model ',
    h('strong', { class: 'model-name' }, String(m.name)), ' ', h('span', { class: 'model-version' }, `version ${m.version ?? '?'}`));
}

/** issuesOf are rev's issues about field (or one of its attributes or files). */
export function issuesOf(rev, field) {
  return list(rev.issues).filter((i) => i && concerns(i.field, field));
}

/** sourcesOf are rev's sources for field or one of its attributes. */
export function sourcesOf(rev, field) {
  return list(rev.sources).filter((s) => s && concerns(s.field, field));
}

/** issueList draws issues ({field, code, severity, message}), errors first. */
export function issueList(issues, id) {
  if (!issues.length) return null;
  const sorted = [...issues].sort((a, b) => (a.severity === 'error' ? 0 : 1) - (b.severity === 'error' ? 0 : 1));
  return h('ul', { class: 'issues small', id, 'aria-label': 'Issues found when submitted' }, sorted.map((i) => h('li', {
    class: `issue sev-${i.severity === 'error' ? 'error' : 'warning'}`, dataset: { place: String(i.field), code: String(i.code) },
  }, h('span', { class: 'badge' }, i.severity === 'error' ? 'error' : 'warning'), ' ',
  h('span', { class: 'place' }, place(i.field)), ' ', String(i.message ?? i.code))));
}

// place names an issue's place for people: "Name", "attribute 3", "source 2".
function place(p) {
  const [field, rest] = String(p).split(/\.(.*)/s);
  if (rest === undefined) return `${fieldLabels[field] || field}:`;
  if (/^\d+$/.test(rest)) {
    const noun = { attributes: 'attribute', files: 'file', sources: 'source' }[field] || field;
    return `${noun} ${Number(rest) + 1}:`;
  }
  return `${rest}:`;
}

/** sourceList draws sources ({field, url, quote}) as links out with their quotes. */
export function sourceList(sources, id) {
  const safe = sources.filter((s) => /^https?:\/\//i.test(String(s.url)));
  if (!safe.length) return null;
  return h('ul', { class: 'sources small', id, 'aria-label': 'Evidence given by the vendor' }, safe.map((s) => {
    const attr = String(s.field).startsWith('attributes.') ? String(s.field).slice('attributes.'.length) : null;
    return h('li', { class: 'source', dataset: { field: String(s.field) } },
      attr ? h('span', { class: 'for' }, `${attr}: `) : null,
      h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer', referrerpolicy: 'no-referrer' }, shortURL(s.url)),
      s.quote ? [' ', h('q', {}, String(s.quote))] : null);
  }));
}

// shortURL is a link's host and path, for its text.
function shortURL(url) {
  try {
    const u = new URL(url);
    const text = u.host + (u.pathname === '/' ? '' : u.pathname);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  } catch {
    return String(url);
  }
}

/** beside draws field's issues and sources of rev, for the field's block (suffix: of their ids, when several revisions are shown). */
export function beside(rev, field, suffix = '') {
  const issues = issueList(issuesOf(rev, field), `issues-${field}${suffix}`);
  const sources = sourceList(sourcesOf(rev, field), `sources-${field}${suffix}`);
  return issues || sources ? h('div', { class: 'evidence' }, issues, sources) : null;
}

/** others draws rev's issues of no proposed field (a dropped source, a value left out). */
export function others(rev, fields) {
  const rest = list(rev.issues).filter((i) => i && !fields.some((f) => concerns(i.field, f)));
  return issueList(rest, 'issues-other');
}

/**
 * decorateChoices adds to the competing proposals' choices (views/compete.js,
 * in body) each proposal's model, its issues and sources for that field,
 * and marks its attributes a newer proposal of the same client superseded,
 * as the server says.
 */
export function decorateChoices(body, all) {
  const byId = new Map(all.map((r) => [String(r.id), r]));
  for (const set of body.querySelectorAll('.choice[data-field]')) {
    const field = set.dataset.field;
    for (const option of set.querySelectorAll('.option[data-revision]')) {
      const r = byId.get(option.dataset.revision);
      if (!r) continue;
      const m = r.model;
      if (m && typeof m === 'object' && m.name) option.querySelector('.who')?.append(` · model ${m.name} ${m.version ?? ''}`.trimEnd());
      for (const li of option.querySelectorAll('li[data-attribute]')) {
        if (attributeOutcome(r, li.dataset.attribute) === 'superseded') li.append(' ', h('span', { class: 'badge fs-superseded' }, 'superseded'));
      }
      const more = beside(r, field, `-${r.id}`);
      if (more) option.querySelector('.val')?.append(more);
    }
  }
}
