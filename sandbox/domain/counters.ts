import { setNewest } from './bounded-map';
import type { Counters as CountersSnapshot } from './types';

/** Counts, never logs: per-key maps are capped so memory stays bounded over long runs. */
export class Counters {
	tokenRequests = 0;
	idempotentReplays = 0;
	accepted = 0;
	rejected = 0;
	rejected401 = 0;
	faultsInjected = 0;
	webhooksQueued = 0;
	webhooksDelivered = 0;
	webhookAttempts = 0;
	webhooksFailed = 0;
	webhooksDropped = 0;
	private readonly requests = new Map<string, number>();
	private readonly createsByKey = new Map<string, number>();

	constructor(private readonly keyCapacity: number) {}

	countRequest(slug: string): void {
		this.requests.set(slug, (this.requests.get(slug) ?? 0) + 1);
	}

	countCreate(idempotencyKey: string): void {
		setNewest(this.createsByKey, idempotencyKey, (this.createsByKey.get(idempotencyKey) ?? 0) + 1, this.keyCapacity);
	}

	countResponse(status: number): void {
		if (status >= 200 && status < 300) this.accepted++;
		else this.rejected++;
		if (status === 401) this.rejected401++;
	}

	snapshot(): CountersSnapshot {
		return {
			tokenRequests: this.tokenRequests,
			requests: Object.fromEntries(this.requests),
			createsByIdempotencyKey: Object.fromEntries(this.createsByKey),
			idempotentReplays: this.idempotentReplays,
			accepted: this.accepted,
			rejected: this.rejected,
			rejected401: this.rejected401,
			faultsInjected: this.faultsInjected,
			webhooksQueued: this.webhooksQueued,
			webhooksDelivered: this.webhooksDelivered,
			webhookAttempts: this.webhookAttempts,
			webhooksFailed: this.webhooksFailed,
			webhooksDropped: this.webhooksDropped,
		};
	}

	reset(): void {
		this.tokenRequests = 0;
		this.idempotentReplays = 0;
		this.accepted = 0;
		this.rejected = 0;
		this.rejected401 = 0;
		this.faultsInjected = 0;
		this.webhooksQueued = 0;
		this.webhooksDelivered = 0;
		this.webhookAttempts = 0;
		this.webhooksFailed = 0;
		this.webhooksDropped = 0;
		this.requests.clear();
		this.createsByKey.clear();
	}
}
