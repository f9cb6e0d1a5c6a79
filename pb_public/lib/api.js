// Everything the page asks the server: PocketBase's auth and records API,
// whose organization-scoped rules decide what a reviewer sees and may
// change, and the reviewers' routes of the enrichment API (the vocabulary,
// the queue, group plans and decisions, the overview), which keep a
// reviewer to their organization the same way.
import PocketBase from '../vendor/pocketbase.es.js';

export const pb = new PocketBase(location.origin);
// note: the SDK cancels a pending request when another one with the same
// method and path starts; the page runs several reads at once on purpose
pb.autoCancellation(false);

// The vocabulary: the values the page works with, their names for people
// and the limits, as the server serves them (loadVocabulary fills these in
// place once, after sign-in, before anything is drawn).

/** The confidence bands, highest first; '' holds revisions sent without confidence: [{value, label}]. */
export const bands = [];

/** The reasons a reviewer may give when something is not applied, in the API's order: [{value, label}]. */
export const reasons = [];

/** The queue's orders, the default first: [{value, label}]. */
export const sorts = [];

/** The enrichable fields, in the API's order. */
export const fieldNames = [];

/** fieldLabels name the fields for people; outcomeLabels what became of a field. */
export const fieldLabels = {};
export const outcomeLabels = {};

/** limits: {commentLength, queuePageSize, bulkMinConfidence, planRevisions}. */
export const limits = {};

let vocabulary = null;

// rememberedKey keeps the last vocabulary read, so that the next load can
// ask for the queue before the vocabulary is read again (readAhead).
const rememberedKey = 'enrichment.vocabulary';

/** loadVocabulary reads the vocabulary from the server, once. */
export function loadVocabulary() {
  vocabulary ??= pb.send('/api/enrichment/review/vocabulary', { method: 'GET' }).then((v) => {
    try {
      localStorage.setItem(rememberedKey, JSON.stringify({ sorts: v.sorts, limits: v.limits }));
    } catch {
      // note: without storage, the next load waits for the vocabulary
    }
    // note: the page holds "no confidence" as '' where the API says none
    bands.splice(0, Infinity, ...v.bands.map((b) => ({ value: b.value === 'none' ? '' : b.value, label: b.label })));
    reasons.splice(0, Infinity, ...v.reasons);
    sorts.splice(0, Infinity, ...v.sorts);
    fieldNames.splice(0, Infinity, ...v.fields.map((f) => f.value));
    Object.assign(fieldLabels, Object.fromEntries(v.fields.map((f) => [f.value, f.label])));
    Object.assign(outcomeLabels, Object.fromEntries(v.outcomes.map((o) => [o.value, o.label])));
    Object.assign(limits, v.limits);
  }, (err) => {
    vocabulary = null; // note: asked again at the next sign-in
    throw err;
  });
  return vocabulary;
}

/** bandLabel writes a band for people, the same way everywhere ("80–100"). */
export function bandLabel(value) {
  return bands.find((b) => b.value === value || (value === 'none' && b.value === ''))?.label ?? String(value);
}

/** reasonLabel names a reason for people. */
export function reasonLabel(value) {
  return reasons.find((r) => r.value === value)?.label ?? value;
}

/** isSuperuser tells whether the signed-in identity is a superuser (who sees every organization). */
export function isSuperuser() {
  return pb.authStore.record?.collectionName === '_superusers';
}

/** signIn tries the reviewers collection, then the superusers. */
export async function signIn(email, password) {
  ahead.clear();
  try {
    await pb.collection('reviewers').authWithPassword(email, password, { expand: 'organization' });
  } catch (err) {
    if (err.status !== 400) throw err;
    await pb.collection('_superusers').authWithPassword(email, password);
  }
}

/** restore checks a remembered sign-in with the server; false when there is none. */
export async function restore() {
  if (!pb.authStore.isValid) {
    pb.authStore.clear();
    return false;
  }
  const collection = pb.authStore.record?.collectionName;
  try {
    await pb.collection(collection).authRefresh(collection === 'reviewers' ? { expand: 'organization' } : {});
    return true;
  } catch {
    pb.authStore.clear();
    ahead.clear();
    return false;
  }
}

// Reads ahead: at a load with a remembered sign-in, the first view's reads
// (the vocabulary, the clients and templates, the queue's first page) are
// sent at once, beside the check of the sign-in, rather than one after the
// other. Each answer is taken once, by the first read that asks the same
// question; a sign-in, or a sign-in found invalid, forgets them, and so
// does the page once its first view is drawn (forgetAhead).
const ahead = new Map(); // key → the answer's promise

// early starts read under key, for a later once(key).
function early(key, read) {
  const answer = read();
  answer.catch(() => {}); // note: a failure is the asker's, if any asks
  ahead.set(key, answer);
}

// once answers key from a read started ahead, else reads it now.
function once(key, read) {
  const answer = ahead.get(key);
  ahead.delete(key);
  return answer ?? read();
}

/** forgetAhead drops the reads started ahead that no one took, so that no later read is answered from them. */
export function forgetAhead() {
  ahead.clear();
}

/**
 * readAhead starts the first view's reads: the vocabulary, the clients and
 * templates and, when a vocabulary read at an earlier load is remembered,
 * the queue's first page as queueAsk(orders) names it ({f, sortKey,
 * around}, as listQueue takes them; null: the address names another view),
 * with the remembered orders and page size. When the vocabulary read now
 * differs, the page's own read asks another question and is sent.
 */
export function readAhead(queueAsk) {
  loadVocabulary().catch(() => {});
  early('clients', readClients);
  early('templates', readTemplates);
  let remembered = null;
  try {
    remembered = JSON.parse(localStorage.getItem(rememberedKey));
  } catch {
    // note: a copy that does not read is not used
  }
  const ask = Array.isArray(remembered?.sorts) && remembered.limits?.queuePageSize ? queueAsk(remembered.sorts) : null;
  if (!ask) return;
  const { f, sortKey, around } = ask;
  const query = queueQuery(f, sortKey, 1, [], around, remembered.limits.queuePageSize, remembered.sorts);
  early(`queue ${JSON.stringify(query)}`, () => readQueue(query));
}

/**
 * listQueue reads one page (from 1) of the pending revisions that match the
 * reviewer's choices f ({client, band, template, sku}), without the
 * revisions of exclude (decided on the page but not yet, or just, sent),
 * from the server's queue route: {items, page, totalItems, totalPages,
 * counts, reasonRequired}, counts by band value; reasonRequired: the
 * server says rejecting these needs a reason. around: the page that holds this revision
 * is read instead, when the queue holds it. Each item has rivals, how many
 * pending revisions its product has. pageSize: the page's size (the
 * vocabulary's, unless given).
 */
export async function listQueue(f, sortKey, page, exclude, around, pageSize = limits.queuePageSize) {
  const query = queueQuery(f, sortKey, page, exclude, around, pageSize, sorts);
  const res = await once(`queue ${JSON.stringify(query)}`, () => readQueue(query));
  const counts = Object.fromEntries(res.bands.map((b) => [b.band === 'none' ? '' : b.band, b.count]));
  return {
    items: res.items, page: res.page + 1, totalItems: res.totalElements, totalPages: res.totalPages, counts,
    reasonRequired: Boolean(res.reasonRequired),
  };
}

// queueQuery is the queue route's query for listQueue's arguments, with
// the orders known.
function queueQuery(f, sortKey, page, exclude, around, pageSize, known) {
  const query = { sort: known.some((s) => s.value === sortKey) ? sortKey : known[0]?.value, page: page - 1, pageSize, ...queueFilter(f) };
  if (exclude.length) query.exclude = exclude.join(',');
  if (around) query.revision = around;
  return query;
}

// queueFilter is the queue route's filter parameters for the reviewer's
// choices f: what selects revisions, not what pages or orders them.
function queueFilter(f) {
  const query = {};
  if (f.client) query.client = f.client;
  if (f.band !== 'all') query.band = f.band || 'none';
  if (f.template) query.template = f.template;
  if (f.sku) query.sku = f.sku;
  Object.assign(query, f.triage); // the triage filters and claimed, as the API names them (views/together.js)
  return query;
}

/**
 * rejectByFilter rejects, in one request, every pending revision the
 * queue's filters for the reviewer's choices f select, with reason;
 * answers as decideGroup does.
 */
export function rejectByFilter(f, reason) {
  return pb.send('/api/enrichment/review/decisions', {
    method: 'POST', body: { status: 'rejected', reason, filter: queueFilter(f) },
  });
}

function readQueue(query) {
  return pb.send('/api/enrichment/review/queue', { method: 'GET', query });
}

/** claim claims (or renews the claim on) a pending revision for the signed-in reviewer; 409 names another holder. */
export function claim(id) {
  return pb.send(`/api/enrichment/review/claims/${encodeURIComponent(id)}`, { method: 'POST' });
}

/** release releases the signed-in reviewer's claim on a revision; keepalive lets it finish while the page is left. */
export function release(id, { keepalive = false } = {}) {
  return pb.send(`/api/enrichment/review/claims/${encodeURIComponent(id)}`, { method: 'DELETE', keepalive });
}

/** brands lists the brands the signed-in identity may see, by name. */
export function brands() {
  return pb.collection('brands').getFullList({ sort: 'name', fields: 'id,name' });
}

/** getRevision reads one revision with its product (as it is now), client and organization. */
export function getRevision(id) {
  return pb.collection('revisions').getOne(id, {
    expand: 'product,product.attributeTemplate,product.brand,apiClient,organization',
  });
}

const proposalFields = [
  'id', 'sku', 'confidence', 'confidenceBand', 'created', 'status', 'proposed', 'base', 'supersededFields', 'apiClient',
  'product', 'expand.apiClient.name', 'issues', 'sources', 'model', 'review',
].join(',');

/** productProposals lists every pending revision of one product, from every client, highest confidence first. */
export function productProposals(product) {
  return pb.collection('revisions').getFullList({
    filter: pb.filter("status = 'pending' && product = {:product}", { product }),
    sort: '-confidence,created,@rowid',
    expand: 'apiClient',
    fields: proposalFields,
    batch: 200,
  });
}

const optionCache = new Map(); // option id → option
const templateReads = new Map(); // template → its options' read (under way or done)

/**
 * options reads the attribute options of a template and any other options
 * named by id (proposals may name options of their own), once each, and
 * returns them by id. A template's read under way is waited for, not sent
 * again.
 */
export async function options(template, ids = []) {
  const missing = () => [...new Set(ids.map(String))].filter((id) => id && id !== '0' && !optionCache.has(id));
  if (template && !templateReads.has(template)) {
    // note: the template's options and the others named in one request
    const named = missing();
    const read = readOptions(['template = {:t}', ...named.map((_, i) => `id = {:o${i}}`)].join(' || '),
      { t: template, ...Object.fromEntries(named.map((id, i) => [`o${i}`, id])) });
    templateReads.set(template, read);
    read.catch(() => templateReads.delete(template));
  }
  if (template) await templateReads.get(template);
  const named = missing();
  if (named.length) await readOptions(named.map((_, i) => `id = {:o${i}}`).join(' || '), Object.fromEntries(named.map((id, i) => [`o${i}`, id])));
  return optionCache;
}

async function readOptions(filter, params) {
  const list = await pb.collection('attribute_options').getFullList({
    filter: pb.filter(filter, params),
    fields: 'id,template,attribute,unit,dataType',
    batch: 500,
  });
  for (const o of list) optionCache.set(o.id, o);
}

/**
 * decide records a decision: body is {status, approvedFields?, reason?,
 * comment?}. keepalive lets it finish while the page is being left.
 */
export function decide(id, body, { keepalive = false } = {}) {
  return pb.collection('revisions').update(id, body, {
    fields: 'id,status,approvedFields,reviewedAt,reason,comment',
    keepalive,
  });
}

/** clients lists the API clients the signed-in identity may see, active ones first. */
export function clients() {
  return once('clients', readClients);
}

function readClients() {
  return pb.collection('api_clients').getFullList({ sort: '-active,name,created', fields: 'id,name,active,organization' });
}

/** templates lists the attribute templates the signed-in identity may see. */
export function templates() {
  return once('templates', readTemplates);
}

function readTemplates() {
  return pb.collection('attribute_templates').getFullList({ sort: 'name', fields: 'id,name,active' });
}

/**
 * plan asks the server what a group accept would do: of the revisions
 * named ({revisions: [id]}), or the bulk accept of one client's ({client},
 * '' for every client) confident pending revisions. Answers {accept:
 * [item], left: [{...item, lost: [{field, to: item}]}]}, where an item is
 * {id, sku, status, confidence, confidenceBand, apiClient, clientName,
 * product, fields}.
 */
export function plan({ client = '', revisions = null } = {}) {
  const query = {};
  if (revisions) query.revisions = revisions.join(',');
  else if (client) query.client = client;
  return pb.send('/api/enrichment/review/plan', { method: 'GET', query });
}

/**
 * decideGroup records a group of decisions ([{id, status, approvedFields?,
 * reason?, comment?}]) in one request, each as decide would; answers
 * {decided, refused, skipped, results: [{id, outcome, revision | error}]}.
 * stopOnFailure: a refusal stops the rest. keepalive lets it finish while
 * the page is being left (browsers allow it for small bodies only).
 */
export function decideGroup(decisions, { stopOnFailure = false, keepalive = false } = {}) {
  const body = { decisions, stopOnFailure };
  return pb.send('/api/enrichment/review/decisions', {
    method: 'POST', body, keepalive: keepalive && JSON.stringify(body).length < 60000,
  });
}

/**
 * overview reads the reviewers' overview from the server: the acceptance
 * metrics of every API client that proposed anything, as
 * GET /api/enrichment/acceptance-rate computes them, and of all together,
 * with the last weeks' decisions and the decisions by confidence.
 */
export function overview() {
  return pb.send('/api/enrichment/review/overview', { method: 'GET' });
}
