/**
 * The page's calls to the server's `/v1/` API, on the page's own origin, with the key of the
 * tab (`Authorization: Bearer`). The JSON is the server's as it is (snake_case, ids as 32 hex
 * digits); a failure is an `ApiError` with the server's `error_code`, `message` and `field`.
 */
/** A failed call: the server's error body, or a network failure (`status` 0). */
export class ApiError extends Error {
    status;
    code;
    field;
    constructor(status, code, message, field) {
        super(message);
        this.status = status;
        this.code = code;
        this.field = field;
    }
}
/** Where the tab keeps its key: sessionStorage, gone with the tab, never in the URL. */
export const KEY_STORAGE = 'hebbs.apiKey';
export function storedKey() {
    return sessionStorage.getItem(KEY_STORAGE);
}
export function storeKey(key) {
    if (key === null) {
        sessionStorage.removeItem(KEY_STORAGE);
    }
    else {
        sessionStorage.setItem(KEY_STORAGE, key);
    }
}
/** The JSON answer of `method path` with `body`, or an `ApiError`. */
export async function call(method, path, body) {
    const headers = { accept: 'application/json' };
    const key = storedKey();
    if (key !== null) {
        headers['authorization'] = `Bearer ${key}`;
    }
    const init = { method, headers };
    if (body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(body);
    }
    let response;
    try {
        response = await fetch(path, init);
    }
    catch (error) {
        throw new ApiError(0, 'unavailable', `the server did not answer: ${String(error)}`, null);
    }
    const text = await response.text();
    const data = text === '' ? undefined : JSON.parse(text);
    if (!response.ok) {
        const failure = (data ?? {});
        throw new ApiError(response.status, failure.error_code ?? `http_${response.status}`, failure.message ?? `HTTP ${response.status}`, failure.field ?? null);
    }
    return data;
}
export const api = {
    health: () => call('GET', '/v1/health'),
    recall: (body) => call('POST', '/v1/memories/recall', body),
    get: (id) => call('GET', `/v1/memories/${id}`),
    lineage: (id) => call('GET', `/v1/memories/${id}/lineage`),
    revise: (id, content) => call('PUT', `/v1/memories/${id}`, { content }),
    forget: (id) => call('POST', '/v1/memories/forget', { ids: [id] }),
    list: (query) => call('GET', `/v1/memories?${query}`),
};
