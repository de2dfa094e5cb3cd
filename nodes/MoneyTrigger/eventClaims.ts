/**
 * Which deliveries this n8n process is handling right now, by event id and by reference: taken
 * synchronously, before any `await`, so of two deliveries of one event (or two events of one
 * transaction) only one goes on at a time; the other is asked to come back later
 * (docs/webhook-memory.md). A claim ends when its delivery's outcome is known: the event is then in
 * the node's memory, or it was refused and its retry is processed like a first delivery.
 *
 * A claim expires if n8n neither answers nor writes the event's execution in time; once the
 * execution is written it lasts until n8n answers, up to a day. Claims cannot see other processes (several
 * webhook processes in queue mode).
 */
export class EventClaims {
	/** Key → the time (ms) its claim expires. */
	private readonly claims = new Map<string, number>();

	constructor(private readonly capacity: number) {}

	/** Takes every key, or none when one of them is held: true when the delivery may go on. */
	take(keys: readonly string[], nowMs: number, holdMs: number): boolean {
		for (const key of keys) {
			const expiresAt = this.claims.get(key);
			if (expiresAt !== undefined && expiresAt > nowMs) return false;
		}
		if (this.claims.size + keys.length > this.capacity) this.evictExpired(nowMs);
		if (this.claims.size + keys.length > this.capacity) return false;
		for (const key of keys) this.claims.set(key, nowMs + holdMs);
		return true;
	}

	/** Holds the claims still held until `atMs` (their event's execution exists: n8n will answer). */
	extend(keys: readonly string[], atMs: number): void {
		for (const key of keys) if (this.claims.has(key)) this.claims.set(key, atMs);
	}

	release(keys: readonly string[]): void {
		for (const key of keys) this.claims.delete(key);
	}

	get size(): number {
		return this.claims.size;
	}

	private evictExpired(nowMs: number): void {
		for (const [key, expiresAt] of this.claims) if (expiresAt <= nowMs) this.claims.delete(key);
	}
}
