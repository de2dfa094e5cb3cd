import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import { isPlainObject } from '../../events/envelope';
import {
	EVENT_ID_HARD_CAP,
	EVENT_ID_REPLAY_WINDOW_SECONDS,
	EVENT_ID_RETENTION_SECONDS,
	EVENT_ID_SOFT_CAP,
	MAX_REMEMBERED_REFERENCES,
} from '../../events/memory';
import { judgeTransition } from '../../events/statusOrder';

/**
 * One trigger node's memory as this n8n process holds it (docs/webhook-memory.md): the event ids it
 * accepted, each with the second it was accepted, oldest first, and the last status per reference,
 * least recently changed first. It outlives requests, so every static-data save n8n makes for the
 * workflow writes all of it, whichever request's copy of the static data is saved.
 */

/**
 * How a node's memory is stored in static data: each list as one JSON text, oldest first. n8n
 * parses a workflow's static data and wraps every object in it for change tracking twice per
 * request (the webhook's copy and the execution's); one string per list costs it almost nothing,
 * where an object with thousands of keys cost milliseconds (bench/README.md).
 */
export interface StoredNodeMemory {
	/** JSON of `[eventId, acceptedAtSecond][]`; `[eventId, second, 1]` for an id whose sender will retry. */
	events: string;
	/** JSON of `[referenceKey, status][]`, least recently changed first. */
	statuses: string;
}

export interface Caps {
	soft: number;
	hard: number;
	references: number;
}

const DEFAULT_CAPS: Caps = { soft: EVENT_ID_SOFT_CAP, hard: EVENT_ID_HARD_CAP, references: MAX_REMEMBERED_REFERENCES };

export function referenceKey(resource: TransactionResource | null, reference: string): string {
	return `${resource ?? 'transaction'}:${reference}`;
}

export class NodeMemory {
	private events = new Map<string, number>();
	/**
	 * Ids of events that ran although their sender never got the 2xx (it had timed out): it will
	 * deliver them again, maybe much later, so they are kept past the soft cap until one of those
	 * deliveries is answered, or for the retention.
	 */
	private readonly retryExpected = new Set<string>();
	private readonly statuses = new Map<string, string>();
	/** The stored form while nothing changed. */
	private stored?: StoredNodeMemory;

	constructor(private readonly caps: Caps = DEFAULT_CAPS) {}

	get size(): number {
		return this.events.size;
	}

	has(id: string): boolean {
		return this.events.has(id);
	}

	status(resource: TransactionResource | null, reference: string): string | undefined {
		return this.statuses.get(referenceKey(resource, reference));
	}

	/**
	 * Whether one more id fits: ids past the retention, and beyond the soft cap ids past the replay
	 * window, make room; when every id is still inside the replay window past the hard cap, the
	 * delivery must be refused rather than risk accepting a replay later.
	 */
	hasRoom(nowSeconds: number): boolean {
		this.evict(nowSeconds);
		return this.events.size < this.caps.hard;
	}

	/** Records an accepted event (and the status it moved its reference to, unless the reference moved past it). */
	record(id: string, nowSeconds: number, status?: { key: string; value: string }): void {
		if (!this.events.has(id)) {
			this.events.set(id, nowSeconds);
			this.stored = undefined;
		}
		if (status) this.advanceStatus(status.key, status.value);
	}

	/** Moves a reference to `value` if that is a step forward; returns the status it had. */
	advanceStatus(key: string, value: string): string | undefined {
		const known = this.statuses.get(key);
		const verdict = judgeTransition(known, value);
		if (verdict === 'new' || verdict === 'advance') this.setStatus(key, value);
		return known;
	}

	/** Gives a reference back the status it had, if it still has the one an event that did not run brought. */
	restoreStatus(key: string, value: string, before: string | undefined): void {
		if (this.statuses.get(key) !== value) return;
		if (before === undefined) this.statuses.delete(key);
		else this.statuses.set(key, before);
		this.stored = undefined;
	}

	/** The sender of this accepted event never got the answer: it will deliver it again. */
	expectRetry(id: string): void {
		if (!this.events.has(id) || this.retryExpected.has(id)) return;
		this.retryExpected.add(id);
		this.stored = undefined;
	}

	isRetryExpected(id: string): boolean {
		return this.retryExpected.has(id);
	}

	/** A delivery of this event was answered (a duplicate): the sender has its 2xx now. */
	retryAnswered(id: string): void {
		if (this.retryExpected.delete(id)) this.stored = undefined;
	}

	/**
	 * Adds what a stored copy holds and this process does not (another process, or before a
	 * restart): ids by age, a status only moving forward. Takes the stored form, and the older form
	 * kept in a node's own static data (`seenEvents`, `statuses`, `referenceOrder`).
	 */
	merge(stored: unknown): void {
		if (!isPlainObject(stored)) return;
		const events = typeof stored.events === 'string' ? pairs(stored.events) : legacyEvents(stored.seenEvents);
		let added = false;
		for (const [id, second, retry] of events) {
			if (typeof second !== 'number' || this.events.has(id)) continue;
			this.events.set(id, second);
			if (retry === 1) this.retryExpected.add(id);
			added = true;
		}
		if (added) {
			this.events = new Map([...this.events].sort((a, b) => a[1] - b[1]));
			this.stored = undefined;
		}
		const statuses = typeof stored.statuses === 'string' ? pairs(stored.statuses) : legacyStatuses(stored);
		const older: Array<[string, string]> = [];
		for (const [key, value] of statuses) {
			if (typeof value !== 'string') continue;
			const known = this.statuses.get(key);
			if (known === undefined) older.push([key, value]);
			else if (judgeTransition(known, value) === 'advance') this.setStatus(key, value);
		}
		if (older.length > 0) {
			const current = [...this.statuses];
			this.statuses.clear();
			for (const [key, value] of [...older, ...current]) this.statuses.set(key, value);
			this.trimStatuses();
			this.stored = undefined;
		}
	}

	toStored(): StoredNodeMemory {
		this.stored ??= {
			events: JSON.stringify([...this.events].map(([id, second]) => (this.retryExpected.has(id) ? [id, second, 1] : [id, second]))),
			statuses: JSON.stringify([...this.statuses]),
		};
		return this.stored;
	}

	/** The reference moves to the most recently changed end. */
	private setStatus(key: string, value: string): void {
		this.statuses.delete(key);
		this.statuses.set(key, value);
		this.trimStatuses();
		this.stored = undefined;
	}

	private trimStatuses(): void {
		while (this.statuses.size > this.caps.references) {
			this.statuses.delete(this.statuses.keys().next().value as string);
		}
	}

	/** Oldest first: ids past the retention; beyond the soft cap, ids past the replay window whose sender has its answer. */
	private evict(nowSeconds: number): void {
		for (const [id, second] of this.events) {
			const age = nowSeconds - second;
			const expired = age >= EVENT_ID_RETENTION_SECONDS;
			if (!expired && this.retryExpected.has(id)) continue;
			const evictable = this.events.size >= this.caps.soft && age > EVENT_ID_REPLAY_WINDOW_SECONDS;
			if (!expired && !evictable) return;
			this.events.delete(id);
			this.retryExpected.delete(id);
			this.stored = undefined;
		}
	}
}

/** `[key, value, ...]` pairs from a stored JSON text; nothing from a text that is not one. */
function pairs(text: string): Array<[string, unknown, unknown?]> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return [];
	}
	if (!Array.isArray(parsed)) return [];
	return parsed.filter((pair): pair is [string, unknown, unknown?] => Array.isArray(pair) && typeof pair[0] === 'string');
}

/** `seenEvents` of the older form: `e:<id>` → second. */
function legacyEvents(seen: unknown): Array<[string, unknown]> {
	if (!isPlainObject(seen)) return [];
	return Object.entries(seen).map(([key, second]) => [key.startsWith('e:') ? key.slice(2) : key, second]);
}

/** `statuses` in `referenceOrder` of the older form. */
function legacyStatuses(stored: IDataObject): Array<[string, unknown]> {
	const statuses = isPlainObject(stored.statuses) ? stored.statuses : {};
	const order = Array.isArray(stored.referenceOrder) ? stored.referenceOrder.map(String) : [];
	return order.map((key) => [key, statuses[key]]);
}
