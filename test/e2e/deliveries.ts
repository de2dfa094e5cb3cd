/**
 * Signed Money API deliveries (and unsigned twins for n8n's Webhook node) sent to a real n8n at a
 * fixed concurrency, as a payments provider sends them: each event until it gets a 2xx, again on a
 * non-2xx answer or on no answer within the sender's timeout.
 */

import * as crypto from 'node:crypto';

import { fetchText } from '../../scripts/n8n';
import { signWebhook, type WebhookTarget } from '../../sandbox/domain/webhooks';

export interface StreamEvent {
	id: string;
	reference: string;
	body: string;
}

/** Completed charge events with fresh ids: `${prefix}-${i}`. */
export function chargeEvents(prefix: string, count: number, { status = 'COMPLETED' } = {}): StreamEvent[] {
	const now = new Date().toISOString();
	return Array.from({ length: count }, (_, i) => {
		const reference = `CH-${prefix}-${i}`;
		const id = `evt_${prefix}_${i}`;
		const body = JSON.stringify({
			id,
			event: `charge.${status.toLowerCase()}`,
			created_at: now,
			data: {
				reference,
				type: 'charge',
				status: { code: 1, label: status },
				amount: { value: 1000 + i, currency: 'XOF' },
				counterpart_account: { identifier: 'GM-1001', channel: 'psp-a-tg', name: null },
				channel: 'psp-a-tg',
				created_at: now,
			},
		});
		return { id, reference, body };
	});
}

/**
 * An attempt n8n may have handled without answering it: a 5xx, or no answer at all, but for a
 * connection n8n refused (down: the request never reached it).
 */
export function mayHaveReachedN8nUnanswered(attempt: Attempt): boolean {
	return attempt.status === null ? !/ECONNREFUSED/.test(attempt.answer ?? '') : attempt.status >= 500;
}

export interface Attempt {
	id: string;
	status: number | null;
	ms: number;
	/** The start of what n8n answered (or of the network error). */
	answer?: string;
}

export interface SendOptions {
	/** Signed (Money Trigger) or not (n8n's Webhook node). */
	target: WebhookTarget | { url: string; unsigned: true };
	concurrency: number;
	/** The sender gives up on an attempt after this long and counts it as no answer. */
	timeoutMs?: number;
	/** Attempts per event; 1 sends each once. */
	maxAttempts?: number;
	/** Wait between attempts of one event (a Retry-After answer header, in seconds, wins up to 10 s). */
	retryDelayMs?: number;
	/** The wait doubles from one attempt to the next (up to 30 s), as a provider's growing delays (docs/decisions.md#d1). */
	backoff?: boolean;
	/** Called after each 2xx with the number of events acknowledged so far. */
	onAcknowledged?: (count: number) => void;
}

export interface SendReport {
	attempts: Attempt[];
	/** Event ids that got a 2xx, and how many attempts each took. */
	acknowledged: Map<string, number>;
	/** Event ids that never got a 2xx. */
	unacknowledged: string[];
	seconds: number;
}

async function postOnce(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number | null; retryAfterMs?: number; answer?: string }> {
	try {
		const res = await fetchText(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, timeoutMs });
		const retryAfter = Number(res.headers.get('retry-after'));
		return { status: res.status, answer: res.text.slice(0, 120), retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 10) * 1000 : undefined };
	} catch (error) {
		return { status: null, answer: String((error as Error).cause ?? error).slice(0, 120) };
	}
}

/** Sends every event with at most `concurrency` requests in flight; resolves when each got a 2xx or ran out of attempts. */
export async function sendAll(events: StreamEvent[], options: SendOptions): Promise<SendReport> {
	const { target, concurrency, timeoutMs = 30_000, maxAttempts = 1, retryDelayMs = 500, backoff = false, onAcknowledged } = options;
	const attempts: Attempt[] = [];
	const acknowledged = new Map<string, number>();
	const unacknowledged: string[] = [];
	const started = Date.now();
	let next = 0;
	const lane = async () => {
		while (next < events.length) {
			const event = events[next++];
			for (let attempt = 1; attempt <= maxAttempts; attempt++) {
				const headers = 'unsigned' in target ? {} : signWebhook(target, event.body, Math.floor(Date.now() / 1000));
				const t = Date.now();
				const { status, retryAfterMs, answer } = await postOnce(target.url, headers, event.body, timeoutMs);
				attempts.push({ id: event.id, status, ms: Date.now() - t, answer });
				if (status !== null && status >= 200 && status < 300) {
					acknowledged.set(event.id, attempt);
					onAcknowledged?.(acknowledged.size);
					break;
				}
				if (attempt === maxAttempts) unacknowledged.push(event.id);
				else {
					const delay = backoff ? Math.min(30_000, retryDelayMs * 2 ** (attempt - 1)) : retryDelayMs;
					await new Promise((resolve) => setTimeout(resolve, backoff ? Math.max(delay, retryAfterMs ?? 0) : (retryAfterMs ?? delay)));
				}
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, events.length) }, lane));
	return { attempts, acknowledged, unacknowledged, seconds: (Date.now() - started) / 1000 };
}

/** A short random tag for event ids of one run. */
export function runTag(): string {
	return crypto.randomBytes(3).toString('hex');
}

