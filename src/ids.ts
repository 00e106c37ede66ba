// The shape of an id the service made (a UUID), for every folder that checks one: schemas
// (documents, webhooks), download links (files), page URLs (web) and signing links.
// It lives here, below all of them, so that none has to import another's schemas for it.

/** A UUID, as a JSON Schema `pattern`. */
export const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** The same rule for code outside a schema (ids in page URLs, signing and download links). */
export const uuidRegExp = new RegExp(uuidPattern);
