import { computeRequestSignature, hexSignaturesEqual, isTimestampFresh, unixSeconds } from '../../credentials/signing/signature';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './envelope';
import { pathAndQueryOf } from './verification';

/**
 * How a Money Poll Trigger set as a backstop hands the Money Trigger of its workflow what no
 * delivery brought (docs/webhook-memory.md, "The backstop"). It posts to the Money Trigger's
 * Production URL, as the API does, so the Money Trigger's memory judges every event whichever way it
 * came, in whichever n8n process holds it (webhook processes in queue mode). A hand-over is
 * authenticated with the credential's Webhook Secret, signed as a request-style delivery to that
 * URL is (timestamp, method, path, body), under a header of its own: an API delivery never carries
 * it, and a hand-over's body is not an API event.
 */

/** Timestamp and HMAC of a hand-over: `t=<unix seconds>,v1=<hex>`. */
export const HAND_OVER_HEADER = 'x-money-backstop';
/** Set on every answer the Money Trigger gives: a 2xx without it (n8n's start-up page, a proxy) was not handled by the trigger. */
export const ANSWERED_BY_TRIGGER_HEADER = 'x-money-trigger';
/** The Money Trigger's answer when it cannot read its credential: no event can be verified until it can. */
export const RECEIVER_UNAVAILABLE = 'receiver-unavailable';

/** The poll's state, kept by the Money Trigger's memory because n8n never saves a backstop poll's static data. */
export interface Checkpoint {
	/** When the poll took it (ms): the newest wins when copies meet. */
	at: number;
	state: unknown;
}

/** An event goes over as the API's deliveries wrap one (docs/decisions.md#d1): `{id, event, created_at, data}`. */
export type HandOver = { node: string; event: IDataObject } | { node: string; checkpoint: Checkpoint };

export function handOverBody(handOver: HandOver): string {
	return JSON.stringify({ backstop: handOver });
}

export function signHandOver(secret: string, url: string, body: string, nowMs = Date.now()): string {
	const timestamp = String(unixSeconds(nowMs));
	return `t=${timestamp},v1=${computeRequestSignature(secret, timestamp, 'POST', pathAndQueryOf(url) ?? url, body)}`;
}

/** Whether the header is a fresh, valid signature of these bytes, posted to one of `signedPaths`, with this secret. */
export function verifyHandOver(secret: string, header: string, rawBody: Buffer, signedPaths: string[], nowSeconds = unixSeconds()): boolean {
	const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header.trim());
	if (!match || secret === '' || !isTimestampFresh(match[1], nowSeconds)) return false;
	return signedPaths.some((path) => hexSignaturesEqual(computeRequestSignature(secret, match[1], 'POST', path, rawBody), match[2]));
}

/** A verified hand-over's body, or null when it is not one. */
export function parseHandOver(rawBody: Buffer): HandOver | null {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return null;
	}
	const handOver = isPlainObject(parsed) ? parsed.backstop : undefined;
	if (!isPlainObject(handOver) || typeof handOver.node !== 'string') return null;
	if (isPlainObject(handOver.event)) return { node: handOver.node, event: handOver.event };
	const checkpoint = handOver.checkpoint;
	if (isPlainObject(checkpoint) && typeof checkpoint.at === 'number') return { node: handOver.node, checkpoint: { at: checkpoint.at, state: checkpoint.state } };
	return null;
}
