/**
 * Which deliveries this n8n process is handling right now, by event (a transaction's status) and
 * by transaction: taken synchronously, before any `await`, so of two deliveries of one event (or
 * two events of one transaction) only one goes on at a time; the other is asked to come back later
 * (docs/webhook-memory.md). A claim ends when its delivery lets it go: the event is then in the
 * node's memory, or it was refused and its retry is processed like a first delivery.
 *
 * A claim expires if its delivery neither ends nor extends it in time; a delivery lets go only of
 * the claims it still holds (one that expired may have been taken by another delivery since).
 * Claims cannot see other processes (several webhook processes in queue mode).
 */
export class Claims {
	/** Key → who holds it, and the time (ms) its claim expires. */
	private readonly claims = new Map<string, { owner: object; expiresAt: number }>();

	constructor(private readonly capacity: number) {}

	/** Takes every key for `owner`, or none when one of them is held: true when the delivery may go on. */
	take(owner: object, keys: readonly string[], nowMs: number, holdMs: number): boolean {
		for (const key of keys) {
			const claim = this.claims.get(key);
			if (claim !== undefined && claim.expiresAt > nowMs) return false;
		}
		if (this.claims.size + keys.length > this.capacity) this.evictExpired(nowMs);
		if (this.claims.size + keys.length > this.capacity) return false;
		for (const key of keys) this.claims.set(key, { owner, expiresAt: nowMs + holdMs });
		return true;
	}

	/** Holds the keys `owner` still holds until `atMs`. */
	extend(owner: object, keys: readonly string[], atMs: number): void {
		for (const key of keys) {
			const claim = this.claims.get(key);
			if (claim?.owner === owner) claim.expiresAt = atMs;
		}
	}

	/** Lets go of the keys `owner` still holds. */
	release(owner: object, keys: readonly string[]): void {
		for (const key of keys) if (this.claims.get(key)?.owner === owner) this.claims.delete(key);
	}

	/** Who holds `key` now, if anyone. */
	holder(key: string, nowMs: number): object | undefined {
		const claim = this.claims.get(key);
		return claim !== undefined && claim.expiresAt > nowMs ? claim.owner : undefined;
	}

	get size(): number {
		return this.claims.size;
	}

	private evictExpired(nowMs: number): void {
		for (const [key, claim] of this.claims) if (claim.expiresAt <= nowMs) this.claims.delete(key);
	}
}
