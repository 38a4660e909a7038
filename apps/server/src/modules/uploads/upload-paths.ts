/** Where the tus endpoint lives. */
export const UPLOAD_PATH = '/api/uploads';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `{userId}/{uuid}/study.zip`, the spec's storage object path; also the tus upload id. */
export const OBJECT_NAME = new RegExp(`^(${UUID})/(${UUID})/study\\.zip$`);
