import {
	computeBodyHmacSignature,
	computeRequestSignature,
	EMPTY_BODY_STRING,
	hexSignaturesEqual,
	isTimestampFresh,
	unixSeconds,
} from '../../credentials/signing/signature';

/** Webhook signature verification, both schemes (docs/signing.md, docs/decisions.md#d1). */

export type WebhookScheme = 'request-style' | 'body-hmac';
export type WebhookSchemeSetting = WebhookScheme | 'either';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export const TIMESTAMP_HEADER = 'x-timestamp';
export const REQUEST_SIGNATURE_HEADER = 'x-hmac-signature';
export const BODY_SIGNATURE_HEADER = 'x-webhook-signature';

type HeaderBag = Record<string, string | string[] | undefined>;

export type VerificationFailure =
	| 'missing-secret'
	| 'missing-timestamp'
	| 'stale-timestamp'
	| 'missing-signature'
	| 'invalid-signature';

export type VerificationResult =
	| { ok: true; scheme: WebhookScheme }
	| { ok: false; reason: VerificationFailure };

export interface VerificationInput {
	scheme: WebhookSchemeSetting;
	secret: string;
	rawBody: Buffer;
	headers: HeaderBag;
	/** Path (and query) candidates the request-style signature may have been computed over. */
	signedPaths: string[];
	nowSeconds?: number;
}

/** A header as a single string; repeated or absent headers give undefined. */
export function singleHeader(headers: HeaderBag, name: string): string | undefined {
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted) continue;
		return typeof value === 'string' ? value.trim() : undefined;
	}
	return undefined;
}

function verifyRequestStyle(
	secret: string,
	timestamp: string,
	rawBody: Buffer,
	signature: string,
	signedPaths: string[],
): boolean {
	const body = rawBody.length === 0 ? EMPTY_BODY_STRING : rawBody;
	let matched = false;
	for (const path of signedPaths) {
		const expected = computeRequestSignature(secret, timestamp, 'POST', path, body);
		if (hexSignaturesEqual(expected, signature)) matched = true;
	}
	return matched;
}

function verifyBodyHmac(secret: string, timestamp: string, rawBody: Buffer, signature: string): boolean {
	return hexSignaturesEqual(computeBodyHmacSignature(secret, timestamp, rawBody), signature);
}

/**
 * Verifies a delivery over the exact bytes received, in constant time per candidate, and says
 * why it failed without revealing anything derived from the secret.
 */
export function verifyWebhookSignature(input: VerificationInput): VerificationResult {
	if (typeof input.secret !== 'string' || input.secret === '') return { ok: false, reason: 'missing-secret' };

	const requestSignature =
		input.scheme === 'body-hmac' ? undefined : singleHeader(input.headers, REQUEST_SIGNATURE_HEADER);
	const bodySignature =
		input.scheme === 'request-style' ? undefined : singleHeader(input.headers, BODY_SIGNATURE_HEADER);
	if (!requestSignature && !bodySignature) return { ok: false, reason: 'missing-signature' };

	const timestamp = singleHeader(input.headers, TIMESTAMP_HEADER);
	if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing-timestamp' };
	if (!isTimestampFresh(timestamp, input.nowSeconds ?? unixSeconds())) {
		return { ok: false, reason: 'stale-timestamp' };
	}

	if (requestSignature && verifyRequestStyle(input.secret, timestamp, input.rawBody, requestSignature, input.signedPaths)) {
		return { ok: true, scheme: 'request-style' };
	}
	if (bodySignature && verifyBodyHmac(input.secret, timestamp, input.rawBody, bodySignature)) {
		return { ok: true, scheme: 'body-hmac' };
	}
	return { ok: false, reason: 'invalid-signature' };
}

/** The path and query of a request URL as received, without scheme or host. */
export function pathAndQueryOf(url: string | undefined): string | undefined {
	if (typeof url !== 'string' || url === '') return undefined;
	if (url.startsWith('/')) return url;
	try {
		const parsed = new URL(url);
		return parsed.pathname + parsed.search;
	} catch {
		return undefined;
	}
}

/**
 * Candidates for the request-style signed path: the path the request arrived on, and the path of
 * the endpoint's public URL (which differs behind a reverse proxy that rewrites the prefix), with
 * the public URL's own query or else the query the request carried. The public URL may be given as
 * a path, with or without its leading slash.
 */
export function signedPathCandidates(options: { requestUrl?: string; publicUrl?: string }): string[] {
	const candidates: string[] = [];
	const received = pathAndQueryOf(options.requestUrl);
	if (received) candidates.push(received);
	const publicUrl = (options.publicUrl ?? '').trim();
	const publicPath = publicUrl === '' ? undefined : (pathAndQueryOf(publicUrl) ?? `/${publicUrl}`);
	if (publicPath) {
		const queryIndex = received ? received.indexOf('?') : -1;
		const query = queryIndex >= 0 && received ? received.slice(queryIndex) : '';
		const candidate = publicPath.includes('?') ? publicPath : publicPath + query;
		if (!candidates.includes(candidate)) candidates.push(candidate);
	}
	return candidates;
}
