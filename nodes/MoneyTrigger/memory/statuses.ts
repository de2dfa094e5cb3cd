import { createHash } from 'node:crypto';

import { isPlainObject } from '../../events/envelope';
import { judgeTransition, type TransitionVerdict } from '../../events/statusOrder';

/**
 * One trigger node's memory: every status label each of the newest `capacity` transactions (by
 * last change) came with, which is all the trigger needs to run each of a
 * transaction's statuses once (docs/webhook-memory.md): an event of this API is a transaction's move
 * to a status, and a redelivery repeats that status.
 *
 * n8n loads and writes a workflow's static data whole on every delivery, so the memory is kept as
 * the labels seen, each as it came, and one string of fixed-size records, least recently changed
 * first: 10 characters of a hash of the transaction (60 bits of SHA-256 of `referenceKey`), then
 * the set of its labels, one bit per label of `labels` in base64url characters of 6 bits (one
 * character for up to six labels).
 */

/** The capacity on n8n 2.x. */
export const REMEMBERED_TRANSACTIONS = 50_000;

/**
 * The capacity on n8n 1.x, which stores the static data with every execution it saves, shared by
 * the workflow's Money Trigger nodes: the memories stay under 64 KB there (workflowMemory.ts).
 */
export const REMEMBERED_TRANSACTIONS_ON_N8N_1 = 4_000;

function forgetBatchOf(capacity: number): number {
	return Math.floor(capacity / 50);
}

/** The most transactions the memory holds on n8n 2.x: past its capacity by a batch, it forgets down to the capacity. */
export const MOST_REMEMBERED = REMEMBERED_TRANSACTIONS + forgetBatchOf(REMEMBERED_TRANSACTIONS);

const HASH_LENGTH = 10;
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BITS_PER_DIGIT = 6;

/** The stored form of one node's memory. */
export interface StoredStatuses {
	labels: string[];
	records: string;
}

/** The transaction an event is about, as the memory names it. */
export function transactionHash(referenceKey: string): string {
	return createHash('sha256').update(referenceKey).digest('base64url').slice(0, HASH_LENGTH);
}

function widthFor(labelCount: number): number {
	return Math.max(1, Math.ceil(labelCount / BITS_PER_DIGIT));
}

/** The stored form if `value` is one, else undefined. */
function storedForm(value: unknown): StoredStatuses | undefined {
	if (!isPlainObject(value) || typeof value.records !== 'string' || !Array.isArray(value.labels)) return undefined;
	const labels = value.labels;
	if (!labels.every((label) => typeof label === 'string') || new Set(labels).size !== labels.length) return undefined;
	if (value.records.length % (HASH_LENGTH + widthFor(labels.length)) !== 0) return undefined;
	return { labels: labels as string[], records: value.records };
}

export class TransactionStatuses {
	/** Every label seen, in the order they first came: bit i of a set is labels[i]. */
	private labels: string[] = [];
	private readonly bitOf = new Map<string, number>();
	/** Characters of a label set. */
	private width = 1;
	/** Hash → its label set, for judging. */
	private readonly sets = new Map<string, string>();
	/** The same as records, least recently changed first: the order in which transactions are forgotten. */
	private records = '';

	/** Past the capacity, the least recently changed are forgotten this many at a time (one copy of the string per batch). */
	private forgetBatch: number;

	constructor(private capacity = REMEMBERED_TRANSACTIONS) {
		this.forgetBatch = forgetBatchOf(capacity);
	}

	/** Keeps `capacity` from now on, forgetting the least recently changed past it and its batch. */
	limit(capacity: number): void {
		this.capacity = capacity;
		this.forgetBatch = forgetBatchOf(capacity);
		this.forgetPastBatch();
	}

	get size(): number {
		return this.sets.size;
	}

	/** The stored form: the labels, and the records least recently changed first. */
	get stored(): StoredStatuses {
		return { labels: this.labels, records: this.records };
	}

	/** The labels a transaction came with, in the order the memory first saw each. */
	labelsOf(hash: string): string[] {
		const set = this.sets.get(hash);
		return set === undefined ? [] : decode(set, this.labels);
	}

	/**
	 * Judges a status against every label of the transaction and those of its events in flight (their
	 * executions written, not yet answered: `inFlight`).
	 */
	judge(hash: string, status: string, inFlight: readonly string[] = []): TransitionVerdict {
		return judgeTransition([...this.labelsOf(hash), ...inFlight], status);
	}

	/** Adds `status` to the transaction's labels, unless it is a repeat or stale. */
	advance(hash: string, status: string): void {
		const verdict = this.judge(hash, status);
		if (verdict !== 'new' && verdict !== 'advance') return;
		const bit = this.bitFor(status);
		this.set(hash, withBit(this.sets.get(hash) ?? empty(this.width), bit));
	}

	/**
	 * Adds what a stored copy holds and this memory does not (another webhook process, or this one
	 * before a restart). A transaction the copy holds in the same state as this memory is a moment
	 * both have seen; a transaction the copy knows more of changed there after the last such moment
	 * before it in the copy, and is placed right after that moment (or after its own place, if later).
	 * So the order stays the order of the changes each process saw, and the least recently changed are
	 * the ones forgotten.
	 */
	merge(stored: unknown): void {
		const copy = storedForm(stored);
		if (!copy || (copy.records === this.records && copy.labels.length === this.labels.length)) return;
		const bits = copy.labels.map((label) => this.bitFor(label));
		const foreignWidth = widthFor(copy.labels.length);
		const foreignLength = HASH_LENGTH + foreignWidth;
		// The usual case (a copy of this memory's labels, or of fewer in the same order) needs no translation.
		const padding = bits.every((bit, index) => bit === index) ? empty(this.width - foreignWidth) : undefined;
		const order: string[] = [];
		const placeOf = new Map<string, number>();
		for (let at = 0; at < this.records.length; at += this.recordLength) {
			const hash = this.records.slice(at, at + HASH_LENGTH);
			placeOf.set(hash, order.length);
			order.push(hash);
		}
		/** Our place after which each changed transaction goes (-1: before all), in the copy's order. */
		const after = new Map<string, number>();
		let anchor = -1;
		for (let at = 0; at < copy.records.length; at += foreignLength) {
			const hash = copy.records.slice(at, at + HASH_LENGTH);
			const written = copy.records.slice(at + HASH_LENGTH, at + foreignLength);
			const theirs = padding === undefined ? translate(written, bits, this.width) : written + padding;
			const ours = this.sets.get(hash);
			const union = ours === undefined ? theirs : unionOf(ours, theirs);
			const place = placeOf.get(hash);
			if (union === ours && !after.has(hash)) {
				if (theirs === ours && place !== undefined) anchor = Math.max(anchor, place);
				continue;
			}
			this.sets.set(hash, union);
			after.delete(hash);
			after.set(hash, Math.max(anchor, place ?? -1));
		}
		if (after.size === 0) return;
		const placed = new Map<number, string[]>();
		for (const [hash, place] of after) {
			const group = placed.get(place);
			if (group) group.push(hash);
			else placed.set(place, [hash]);
		}
		const records: string[] = [];
		const emit = (place: number) => {
			for (const hash of placed.get(place) ?? []) records.push(hash + (this.sets.get(hash) as string));
		};
		emit(-1);
		order.forEach((hash, place) => {
			if (!after.has(hash)) records.push(hash + (this.sets.get(hash) as string));
			emit(place);
		});
		this.records = records.join('');
		this.forgetPastBatch();
	}

	private get recordLength(): number {
		return HASH_LENGTH + this.width;
	}

	/** The bit of a label, given one (and the records widened) when it is new. */
	private bitFor(label: string): number {
		const known = this.bitOf.get(label);
		if (known !== undefined) return known;
		const bit = this.labels.length;
		this.labels = [...this.labels, label];
		this.bitOf.set(label, bit);
		if (widthFor(this.labels.length) > this.width) this.widen();
		return bit;
	}

	/** One more character for every label set. */
	private widen(): void {
		const zero = DIGITS[0];
		const records: string[] = [];
		for (let at = 0; at < this.records.length; at += this.recordLength) {
			const hash = this.records.slice(at, at + HASH_LENGTH);
			const set = (this.sets.get(hash) as string) + zero;
			this.sets.set(hash, set);
			records.push(hash + set);
		}
		this.width++;
		this.records = records.join('');
	}

	/**
	 * The transaction moves to the most recently changed end. Past the capacity and a batch, the
	 * least recently changed are forgotten down to the capacity: at least `capacity` are always kept,
	 * and never more than `capacity + forgetBatch`.
	 */
	private set(hash: string, labelSet: string): void {
		this.remove(hash);
		this.sets.set(hash, labelSet);
		this.records += hash + labelSet;
		this.forgetPastBatch();
	}

	private forgetPastBatch(): void {
		if (this.sets.size <= this.capacity + this.forgetBatch) return;
		const excess = this.sets.size - this.capacity;
		if (excess <= 0) return;
		const length = this.recordLength;
		for (let at = 0; at < excess * length; at += length) this.sets.delete(this.records.slice(at, at + HASH_LENGTH));
		this.records = this.records.slice(excess * length);
	}

	private remove(hash: string): void {
		if (!this.sets.delete(hash)) return;
		const length = this.recordLength;
		for (let at = this.records.indexOf(hash); at >= 0; at = this.records.indexOf(hash, at + 1)) {
			if (at % length !== 0) continue;
			this.records = this.records.slice(0, at) + this.records.slice(at + length);
			return;
		}
	}
}

function empty(width: number): string {
	return DIGITS[0].repeat(width);
}

function withBit(set: string, bit: number): string {
	const at = Math.floor(bit / BITS_PER_DIGIT);
	const digit = DIGITS.indexOf(set[at]) | (1 << bit % BITS_PER_DIGIT);
	return set.slice(0, at) + DIGITS[digit] + set.slice(at + 1);
}

function unionOf(left: string, right: string): string {
	let union = '';
	for (let at = 0; at < left.length; at++) union += DIGITS[DIGITS.indexOf(left[at]) | DIGITS.indexOf(right[at])];
	return union;
}

function decode(set: string, labels: readonly string[]): string[] {
	const found: string[] = [];
	for (let bit = 0; bit < labels.length; bit++) {
		if (DIGITS.indexOf(set[Math.floor(bit / BITS_PER_DIGIT)]) & (1 << bit % BITS_PER_DIGIT)) found.push(labels[bit]);
	}
	return found;
}

/** A set written over another memory's labels (`bits`: their bit here), at this memory's width. */
function translate(set: string, bits: readonly number[], width: number): string {
	let translated = empty(width);
	bits.forEach((bit, theirs) => {
		if (DIGITS.indexOf(set[Math.floor(theirs / BITS_PER_DIGIT)]) & (1 << theirs % BITS_PER_DIGIT)) translated = withBit(translated, bit);
	});
	return translated;
}
