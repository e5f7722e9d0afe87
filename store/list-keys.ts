// The keys of the connector list index, as strings whose order is the list's order.
//
// FerretDB's SQLite backend (the embedded database) serves from an index only conditions on
// `_id` (with the patch in stack/toolchain/ferretdb.patch: equality, ranges, `$in`, a sort on
// `_id` and the limit); any other filter or sort reads and decodes the whole collection in Go
// (about 25 µs a record, 250 ms at 10,000). So every list view is a range of `_id`s of its own:
//   a|<created_at>|<id>                    all connectors
//   s|<state>|<created_at>|<id>            by state
//   o|<owner>|<created_at>|<id>            by owner
//   os|<owner>|<state>|<created_at>|<id>   by owner and state
// with the owner in base64url. Every part is made of characters from '#' on that JSON does not
// escape, so that the JSON text FerretDB indexes sorts as the strings do (and MongoDB sorts
// strings by their bytes). The count of each view is kept under the view's prefix.
import type { ConnectorRecord } from '../contract/connector-record';
import type { PagePosition } from './page-token';

export interface ListView {
  state?: string;
  /** The owner (created_by); undefined: every owner. */
  owner?: string;
}

const SEP = '|';
/** Above every character a key holds: the end of a view's range. */
const END = '~';

const owner64 = (owner: string) => Buffer.from(owner, 'utf8').toString('base64url');

/** The view's prefix; it is also the `_id` of the view's count. */
export function viewPrefix(view: ListView): string {
  const parts =
    view.owner === undefined
      ? view.state === undefined ? ['a'] : ['s', view.state]
      : view.state === undefined ? ['o', owner64(view.owner)] : ['os', owner64(view.owner), view.state];
  return parts.join(SEP) + SEP;
}

/** Every key under which `record` is listed. */
export function listKeysOf(record: Pick<ConnectorRecord, 'id' | 'state' | 'created_at' | 'created_by'>): string[] {
  const tail = record.created_at + SEP + record.id;
  const views: ListView[] = [{}, { state: record.state }];
  if (record.created_by !== null) views.push({ owner: record.created_by }, { owner: record.created_by, state: record.state });
  return views.map((view) => viewPrefix(view) + tail);
}

/** The count `_id` a key adds to (its view's prefix). */
export function countIdOf(key: string): string {
  return key.slice(0, key.lastIndexOf(SEP, key.lastIndexOf(SEP) - 1) + 1);
}

/**
 * The `_id` range of a view, after a page position when there is one. A position of our own
 * (created_at and id) keeps to the characters above; any other (a hand-made token) still pages
 * correctly, but FerretDB serves such a bound by a scan.
 */
export function viewRange(view: ListView, after: PagePosition | null): { $gt?: string; $gte?: string; $lt: string } {
  const prefix = viewPrefix(view);
  if (!after) return { $gte: prefix, $lt: prefix + END };
  return { $gt: prefix + after.k + SEP + after.id, $lt: prefix + END };
}

/** The page position of a key: its created_at and id. */
export function positionOf(key: string): PagePosition {
  const idAt = key.lastIndexOf(SEP);
  const kAt = key.lastIndexOf(SEP, idAt - 1);
  return { k: key.slice(kAt + 1, idAt), id: key.slice(idAt + 1) };
}

/** Whether `record` belongs to `view` (a key can be older than its record's state). */
export function inView(record: Pick<ConnectorRecord, 'state' | 'created_by'>, view: ListView): boolean {
  return (view.state === undefined || record.state === view.state) && (view.owner === undefined || record.created_by === view.owner);
}
