import { createHash } from 'node:crypto';

import { judgeTransition, type TransitionVerdict } from '../../events/statusOrder';

/**
 * One trigger node's memory: the last status of each of the newest REMEMBERED_TRANSACTIONS
 * transactions (by last change), which is all the trigger needs to run every event once
 * (docs/webhook-memory.md): an event of this API is a transaction's move to a status, a
 * redelivery repeats that status, and statuses only move forward (docs/decisions.md#d2).
 *
 * n8n loads and writes a workflow's static data whole on every delivery, so the memory is kept as
 * one string of fixed-size records, least recently changed first: 10 characters of a hash of the
 * transaction (60 bits of SHA-256 of `referenceKey`) and 1 for its status. 11 bytes a transaction.
 */

export const REMEMBERED_TRANSACTIONS = 50_000;

const HASH_LENGTH = 10;
const RECORD_LENGTH = HASH_LENGTH + 1;

/**
 * The specification's statuses, one character each. Any other label is stored as OTHER: they are one
 * status, after PENDING and before the final ones (docs/decisions.md#d2).
 */
const CODES: Record<string, string> = { PENDING: 'P', COMPLETED: 'C', FAILED: 'F', CANCELLED: 'X', REVERSED: 'R' };
const OTHER = 'U';
const LABELS: Record<string, string> = { ...Object.fromEntries(Object.entries(CODES).map(([label, code]) => [code, label])), [OTHER]: 'UNKNOWN' };
/** Every code a status may have. */
export const STATUS_CODES: readonly string[] = Object.keys(LABELS);

/** The one character the memory stores for a status. */
export function statusCode(status: string): string {
	return CODES[status] ?? OTHER;
}

function labelOf(code: string): string {
	return LABELS[code] ?? LABELS[OTHER];
}

/** The transaction an event is about, as the memory names it. */
export function transactionHash(referenceKey: string): string {
	return createHash('sha256').update(referenceKey).digest('base64url').slice(0, HASH_LENGTH);
}

export class TransactionStatuses {
	/** Hash → status code, for judging. */
	private readonly codes = new Map<string, string>();
	/** The same as records, least recently changed first: the order in which transactions are forgotten. */
	private records = '';

	/** Past the capacity, the least recently changed are forgotten this many at a time (one copy of the string per batch). */
	private readonly forgetBatch: number;

	constructor(private readonly capacity = REMEMBERED_TRANSACTIONS) {
		this.forgetBatch = Math.floor(capacity / 50);
	}

	get size(): number {
		return this.codes.size;
	}

	/** The stored form: the records, least recently changed first. */
	get stored(): string {
		return this.records;
	}

	/**
	 * Judges a status against the transaction's last status and those of its events in flight (their
	 * executions written, not yet answered: `inFlight`): stale or a duplicate against any of them.
	 */
	judge(hash: string, status: string, inFlight: readonly string[] = []): TransitionVerdict {
		const known = this.codes.get(hash);
		const before = known === undefined ? inFlight : [labelOf(known), ...inFlight];
		let verdict: TransitionVerdict = 'new';
		for (const previous of before) {
			verdict = judgeTransition(previous, status);
			if (verdict === 'duplicate' || verdict === 'stale') return verdict;
		}
		return verdict;
	}

	/** Moves a transaction to `status` if that is a step forward from its last status. */
	advance(hash: string, status: string): void {
		const verdict = this.judge(hash, status);
		if (verdict === 'new' || verdict === 'advance') this.set(hash, statusCode(status));
	}

	/**
	 * Adds what a stored copy holds and this memory does not (another process, or this one before a
	 * restart): a transaction only moves forward; ones this memory does not know count as older.
	 */
	merge(stored: unknown): void {
		if (typeof stored !== 'string' || stored === this.records || stored.length % RECORD_LENGTH !== 0) return;
		if (this.codes.size === 0) {
			for (let at = 0; at < stored.length; at += RECORD_LENGTH) this.codes.set(stored.slice(at, at + HASH_LENGTH), stored[at + HASH_LENGTH]);
			this.records = stored;
			if (this.codes.size * RECORD_LENGTH !== stored.length) this.rewrite();
			this.forgetBeyond(this.capacity);
			return;
		}
		const older: Array<[string, string]> = [];
		for (let at = 0; at + RECORD_LENGTH <= stored.length; at += RECORD_LENGTH) {
			const hash = stored.slice(at, at + HASH_LENGTH);
			const code = stored[at + HASH_LENGTH];
			const known = this.codes.get(hash);
			if (known === undefined) older.push([hash, code]);
			else if (known !== code && judgeTransition(labelOf(known), labelOf(code)) === 'advance') this.set(hash, code);
		}
		if (older.length === 0) return;
		for (const [hash, code] of older) this.codes.set(hash, code);
		this.records = older.map(([hash, code]) => hash + code).join('') + this.records;
		this.forgetBeyond(this.capacity);
	}

	/**
	 * The transaction moves to the most recently changed end. Past the capacity (and a batch), the
	 * least recently changed are forgotten down to the capacity: at least `capacity` are always kept.
	 */
	private set(hash: string, code: string): void {
		this.remove(hash);
		this.codes.set(hash, code);
		this.records += hash + code;
		if (this.codes.size > this.capacity + this.forgetBatch) this.forgetBeyond(this.capacity);
	}

	private forgetBeyond(count: number): void {
		const excess = this.codes.size - count;
		if (excess <= 0) return;
		for (let at = 0; at < excess * RECORD_LENGTH; at += RECORD_LENGTH) this.codes.delete(this.records.slice(at, at + HASH_LENGTH));
		this.records = this.records.slice(excess * RECORD_LENGTH);
	}

	/** Records from the map, for a stored copy that held a transaction twice. */
	private rewrite(): void {
		const records: string[] = [];
		for (const [hash, code] of this.codes) records.push(hash + code);
		this.records = records.join('');
	}

	private remove(hash: string): void {
		if (!this.codes.delete(hash)) return;
		for (let at = this.records.indexOf(hash); at >= 0; at = this.records.indexOf(hash, at + 1)) {
			if (at % RECORD_LENGTH !== 0) continue;
			this.records = this.records.slice(0, at) + this.records.slice(at + RECORD_LENGTH);
			return;
		}
	}
}
