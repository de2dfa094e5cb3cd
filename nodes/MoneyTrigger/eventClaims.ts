/**
 * Which events this n8n process has accepted lately, per trigger node: claimed synchronously, so of
 * two deliveries of one event handled at the same time by this process only the first goes on.
 *
 * The node's static data is the memory that survives restarts, but n8n loads a fresh copy of it for
 * every request and saves it only after the response, with no lock: two concurrent requests would
 * both find the event unseen (docs/webhook-memory.md). This process-wide memory closes that window
 * inside one process; it cannot see other processes (several webhook processes in queue mode).
 */
export class EventClaims {
	private readonly claims = new Map<string, number>();

	constructor(
		private readonly windowMs: number,
		private readonly capacity: number,
	) {}

	/** True when this delivery may go on; false when the event was claimed inside the window. */
	claim(key: string, nowMs: number): boolean {
		const claimedAt = this.claims.get(key);
		if (claimedAt !== undefined && nowMs - claimedAt < this.windowMs) return false;
		this.evict(nowMs);
		this.claims.delete(key);
		this.claims.set(key, nowMs);
		return true;
	}

	/** Gives a claim back, so a redelivery is processed (the first attempt was refused). */
	release(key: string): void {
		this.claims.delete(key);
	}

	get size(): number {
		return this.claims.size;
	}

	private evict(nowMs: number): void {
		for (const [key, claimedAt] of this.claims) {
			if (nowMs - claimedAt < this.windowMs && this.claims.size < this.capacity) return;
			this.claims.delete(key);
		}
	}
}
