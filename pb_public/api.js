// Everything the page asks the server, through PocketBase's auth and records
// API only: the collections' organization-scoped rules decide what a
// reviewer sees and may change.
import PocketBase from './vendor/pocketbase.es.js';

export const pb = new PocketBase(location.origin);
// note: the SDK cancels a pending request when another one with the same
// method and path starts; the page runs several counts at once on purpose
pb.autoCancellation(false);

/** The confidence bands, highest first; '' holds revisions sent without confidence. */
export const bands = [
  { value: '80-100', label: '80–100' },
  { value: '50-79', label: '50–79' },
  { value: '0-49', label: '0–49' },
  { value: '', label: 'none' },
];

/** Queue orders offered to the reviewer; @rowid breaks ties in submission order. */
export const sorts = {
  'confidence-desc': { label: 'Confidence ↓', sort: '-confidence,created,@rowid' },
  'confidence-asc': { label: 'Confidence ↑', sort: 'confidence,created,@rowid' },
  'age-desc': { label: 'Oldest first', sort: 'created,@rowid' },
  'age-asc': { label: 'Newest first', sort: '-created,-@rowid' },
};

export const pageSize = 50;

/** The enrichable fields, in the API's order. */
export const fieldNames = ['name', 'slug', 'description', 'attributes', 'files'];

/** isSuperuser tells whether the signed-in identity is a superuser (who sees every organization). */
export function isSuperuser() {
  return pb.authStore.record?.collectionName === '_superusers';
}

/** signIn tries the reviewers collection, then the superusers. */
export async function signIn(email, password) {
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
    return false;
  }
}

/**
 * pendingFilter is the filter of the pending revisions that match the
 * reviewer's choices ({client, band, template, sku}); band 'all' or
 * undefined is no band condition. User input only ever goes in as a
 * parameter of pb.filter.
 */
export function pendingFilter(f, band = f.band) {
  const parts = ["status = 'pending'"];
  const params = {};
  if (f.client) {
    parts.push('apiClient = {:client}');
    params.client = f.client;
  }
  if (band !== undefined && band !== 'all') {
    parts.push('confidenceBand = {:band}');
    params.band = band;
  }
  if (f.template) {
    parts.push('product.attributeTemplate = {:template}');
    params.template = f.template;
  }
  if (f.sku) {
    parts.push('sku ~ {:sku}');
    params.sku = f.sku;
  }
  return pb.filter(parts.join(' && '), params);
}

const queueFields = [
  'id', 'sku', 'confidence', 'confidenceBand', 'created', 'status', 'proposed', 'apiClient', 'product',
  'expand.product.name', 'expand.apiClient.name',
].join(',');

/** listQueue returns one page of the pending revisions that match f. */
export function listQueue(f, sortKey, page) {
  return pb.collection('revisions').getList(page, pageSize, {
    filter: pendingFilter(f),
    sort: (sorts[sortKey] || sorts['confidence-desc']).sort,
    expand: 'product,apiClient',
    fields: queueFields,
  });
}

/** count is how many revisions match filter. */
export async function count(filter) {
  const res = await pb.collection('revisions').getList(1, 1, { filter, fields: 'id' });
  return res.totalItems;
}

/** bandCounts counts the pending revisions matching f per band, whatever band f picks. */
export async function bandCounts(f) {
  const counts = await Promise.all(bands.map((b) => count(pendingFilter(f, b.value))));
  return Object.fromEntries(bands.map((b, i) => [b.value, counts[i]]));
}

/** getRevision reads one revision with its product (as it is now) and client. */
export function getRevision(id) {
  return pb.collection('revisions').getOne(id, { expand: 'product,product.attributeTemplate,apiClient' });
}

/** decide records a decision: accepted (all fields, or the approved ones) or rejected. */
export function decide(id, status, approvedFields) {
  const body = { status };
  if (status === 'accepted' && approvedFields) body.approvedFields = approvedFields;
  return pb.collection('revisions').update(id, body, { fields: 'id,status,approvedFields,reviewedAt' });
}

/** clients lists the API clients the signed-in identity may see, active ones first. */
export function clients() {
  return pb.collection('api_clients').getFullList({ sort: '-active,name,created', fields: 'id,name,active,organization' });
}

/** templates lists the attribute templates the signed-in identity may see. */
export function templates() {
  return pb.collection('attribute_templates').getFullList({ sort: 'name', fields: 'id,name,active' });
}

/** bulkCandidates lists the ids of client's pending revisions with confidence 80 or more. */
export async function bulkCandidates(client) {
  const list = await pb.collection('revisions').getFullList({
    filter: pb.filter("status = 'pending' && apiClient = {:client} && confidenceBand = '80-100'", { client }),
    sort: 'created,@rowid',
    fields: 'id,sku',
    batch: 500,
  });
  return list;
}

/**
 * overview reads the reviewers' overview from the server: the acceptance
 * metrics of every API client that proposed anything, as
 * GET /api/enrichment/acceptance-rate computes them, and of all together.
 */
export function overview() {
  return pb.send('/api/enrichment/review/overview', { method: 'GET' });
}
