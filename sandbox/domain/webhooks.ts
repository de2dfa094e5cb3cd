import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { canonicalString, hmacHex } from '../security/signature';
import type { SandboxClock } from './clock';
import type { Counters } from './counters';
import { randomId } from './random';
import type { WebhookDeliverySettings } from './settings';
import type { TransactionEnvelope, WebhookScheme } from './types';

export interface WebhookTarget {
	url: string;
	scheme: WebhookScheme;
	secret: string;
}

interface QueuedEvent {
	id: string;
	target: WebhookTarget;
	body: string;
	attempts: number;
}

export interface WebhookEventBody {
	id: string;
	event: string;
	created_at: string;
	data: TransactionEnvelope;
}

/** Signature headers of docs/decisions.md#d1; the timestamp is fresh per attempt, the body bytes never change. */
export function signWebhook(target: WebhookTarget, body: string, timestampSeconds: number): Record<string, string> {
	const timestamp = String(timestampSeconds);
	if (target.scheme === 'body-hmac') {
		return { 'x-timestamp': timestamp, 'x-webhook-signature': hmacHex(target.secret, `${timestamp}.${body}`) };
	}
	const url = new URL(target.url);
	const canonical = canonicalString(timestamp, 'POST', `${url.pathname}${url.search}`, Buffer.from(body, 'utf8'));
	return { 'x-timestamp': timestamp, 'x-hmac-signature': hmacHex(target.secret, canonical) };
}

function postOnce(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number | null> {
	return new Promise((resolve) => {
		let settled = false;
		const finish = (status: number | null) => {
			if (!settled) {
				settled = true;
				resolve(status);
			}
		};
		let parsed: URL;
		try {
			parsed = new URL(url);
		} catch {
			finish(null);
			return;
		}
		const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
		const payload = Buffer.from(body, 'utf8');
		const outgoing = send(
			parsed,
			{
				method: 'POST',
				agent: false,
				headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'money-sandbox-webhooks/1' },
			},
			(response) => {
				response.resume();
				response.on('end', () => finish(response.statusCode ?? null));
				response.on('error', () => finish(null));
			},
		);
		outgoing.setTimeout(timeoutMs, () => {
			outgoing.destroy();
			finish(null);
		});
		outgoing.on('error', () => finish(null));
		outgoing.end(payload);
	});
}

/** One signed event body POSTed `copies` times at once (the same delivery retried in parallel); the statuses, null for no answer. */
export async function deliverCopies(target: WebhookTarget, body: string, copies: number, timestampSeconds: number): Promise<Array<number | null>> {
	const headers = signWebhook(target, body, timestampSeconds);
	return await Promise.all(Array.from({ length: copies }, () => postOnce(target.url, headers, body, 30_000)));
}

export class WebhookDispatcher {
	private readonly ready: QueuedEvent[] = [];
	private readonly retryTimers = new Map<NodeJS.Timeout, QueuedEvent>();
	private inFlight = 0;
	private flushWaiters: Array<() => void> = [];
	private closed = false;

	constructor(
		private readonly settings: WebhookDeliverySettings,
		private readonly counters: Counters,
		private readonly clock: SandboxClock,
	) {}

	get backlog(): number {
		return this.ready.length + this.retryTimers.size + this.inFlight;
	}

	enqueue(target: WebhookTarget, eventName: string, data: TransactionEnvelope): string | null {
		if (this.closed) return null;
		if (this.backlog >= this.settings.queueCapacity) {
			this.counters.webhooksDropped++;
			return null;
		}
		const event: WebhookEventBody = { id: randomId('evt_', 12), event: eventName, created_at: new Date(this.clock.now()).toISOString(), data };
		this.ready.push({ id: event.id, target, body: JSON.stringify(event), attempts: 0 });
		this.counters.webhooksQueued++;
		this.pump();
		return event.id;
	}

	private pump(): void {
		while (!this.closed && this.inFlight < this.settings.concurrency && this.ready.length > 0) {
			const event = this.ready.shift() as QueuedEvent;
			this.inFlight++;
			void this.attempt(event).finally(() => {
				this.inFlight--;
				this.pump();
				this.notifyIfIdle();
			});
		}
		this.notifyIfIdle();
	}

	private async attempt(event: QueuedEvent): Promise<void> {
		event.attempts++;
		this.counters.webhookAttempts++;
		const headers = { ...signWebhook(event.target, event.body, this.clock.nowSeconds()), 'x-webhook-id': event.id };
		const status = await postOnce(event.target.url, headers, event.body, this.settings.timeoutMs);
		if (status !== null && status >= 200 && status < 300) {
			this.counters.webhooksDelivered++;
			return;
		}
		if (this.closed) return;
		if (event.attempts >= this.settings.maxAttempts) {
			this.counters.webhooksFailed++;
			return;
		}
		const delay = this.settings.baseDelayMs * 2 ** (event.attempts - 1);
		const timer = setTimeout(() => {
			this.retryTimers.delete(timer);
			this.ready.push(event);
			this.pump();
		}, delay);
		timer.unref();
		this.retryTimers.set(timer, event);
	}

	private notifyIfIdle(): void {
		if (this.backlog > 0 || this.flushWaiters.length === 0) return;
		const waiters = this.flushWaiters;
		this.flushWaiters = [];
		for (const resolve of waiters) resolve();
	}

	/** Resolves once every queued event is delivered or given up. */
	flush(): Promise<void> {
		if (this.backlog === 0) return Promise.resolve();
		return new Promise((resolve) => this.flushWaiters.push(resolve));
	}

	close(): void {
		this.closed = true;
		for (const timer of this.retryTimers.keys()) clearTimeout(timer);
		this.retryTimers.clear();
		this.ready.length = 0;
		const waiters = this.flushWaiters;
		this.flushWaiters = [];
		for (const resolve of waiters) resolve();
	}
}
