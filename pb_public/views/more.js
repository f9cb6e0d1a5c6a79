// The views beside the queue and the overview: decided (#decided: the
// decided revisions, everyone's or the reviewer's own) and trust (#trust:
// policies, audits, rollback). Their tabs and sections
// are added to the page here; app.js asks route first whether the address
// names one of them. Their code is read when a view is first shown, not
// with the page: the queue does not wait for it.
import { $, h, message, replace } from '../lib/dom.js';

// onDemand is a view's drawing function, read from its module the first
// time the view is shown.
function onDemand(load, name) {
  return async (body) => {
    let module;
    try {
      module = await load();
    } catch (err) {
      replace(body, h('p', { class: 'error', role: 'alert' }, `Could not load this view: ${message(err)}`));
      return;
    }
    await module[name](body);
  };
}

/** views are the extra views: address prefix, section id, tab id and label, and how each is drawn. */
export const views = [
  { hash: '#decided', id: 'decided-view', tab: 'tab-decided', label: 'Decided', show: onDemand(() => import('./decided.js'), 'showDecided') },
  { hash: '#trust', id: 'trust-view', tab: 'tab-trust', label: 'Trust', show: onDemand(() => import('./trust.js'), 'showTrust') },
];

/** viewIds are the sections' ids, for the page's list of views. */
export const viewIds = views.map((v) => v.id);

// note: added once, when the page's script runs (the DOM is parsed then);
// the page's header has the tabs already, so that it does not grow when
// they come (a layout shift)
for (const v of views) {
  if (!document.getElementById(v.tab)) $('#tabs').append(h('a', { href: v.hash, id: v.tab }, v.label));
  $('main').append(h('section', { id: v.id, class: 'overview more-view', hidden: true, 'aria-labelledby': `${v.id}-title` },
    h('h2', { id: `${v.id}-title` }, v.label), h('div', { id: `${v.id}-body` })));
}

/**
 * route shows the extra view the address names, with showOnly (app.js),
 * and answers true; false when it names none (the tabs of these views are
 * then left unmarked).
 */
export async function route(showOnly) {
  const view = named(location.hash);
  for (const v of views) $(`#${v.tab}`).removeAttribute('aria-current');
  if (!view) return false;
  for (const a of $('#tabs').querySelectorAll('a')) a.removeAttribute('aria-current');
  $(`#${view.tab}`).setAttribute('aria-current', 'page');
  showOnly(view.id);
  $('#keys').hidden = true;
  await view.show($(`#${view.id}-body`));
  return true;
}

/** named is the extra view an address's hash names, if any. */
export function named(hash) {
  return views.find((v) => hash === v.hash || hash.startsWith(`${v.hash}/`));
}
