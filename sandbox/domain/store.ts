import { setNewest } from './bounded-map';
import { seededRandom } from './random';
import type { Channel, Resource, Status, Transaction } from './types';

export interface ListQuery {
	page: number;
	limit: number;
	status?: Status;
	channel?: Channel;
	startMs?: number;
	endMs?: number;
	/** How transactions created at the same instant are ordered among themselves (SandboxConfig.listTieOrder); absent: by creation. */
	ties?: TieOrder;
}

/** Ties in the reverse of their creation order, or shuffled by a PRNG of this seed. */
export type TieOrder = { reverse: true } | { shuffleSeed: number };

function isBefore(a: Transaction, b: Transaction): boolean {
	return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.seq < b.seq);
}

/** Kept sorted by (createdAt, seq) ascending, so pages are index arithmetic and date bounds are binary searches. */
class ChronologicalList {
	readonly items: Transaction[] = [];

	insert(tx: Transaction): void {
		const last = this.items[this.items.length - 1];
		if (!last || !isBefore(tx, last)) {
			this.items.push(tx);
			return;
		}
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (isBefore(this.items[mid], tx)) low = mid + 1;
			else high = mid;
		}
		this.items.splice(low, 0, tx);
	}

	insertMany(txs: Transaction[]): void {
		const last = this.items[this.items.length - 1];
		const sorted = txs.every((tx, index) => index === 0 || !isBefore(tx, txs[index - 1]));
		if (sorted && (!last || txs.length === 0 || !isBefore(txs[0], last))) {
			for (const tx of txs) this.items.push(tx);
			return;
		}
		for (const tx of txs) this.items.push(tx);
		this.items.sort((a, b) => (isBefore(a, b) ? -1 : isBefore(b, a) ? 1 : 0));
	}

	/** First index whose createdAt >= ms. */
	lowerBound(ms: number): number {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (this.items[mid].createdAt < ms) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	/** First index whose createdAt > ms. */
	upperBound(ms: number): number {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (this.items[mid].createdAt <= ms) low = mid + 1;
			else high = mid;
		}
		return low;
	}
}

export class TransactionStore {
	private readonly byReference = new Map<string, Transaction>();
	private readonly byUniqueId = new Map<string, Transaction>();
	private readonly lists = new Map<string, ChronologicalList>();
	private nextSeq = 1;

	allocateSeq(): number {
		return this.nextSeq++;
	}

	private listFor(clientId: string, resource: Resource): ChronologicalList {
		const key = `${clientId}\u0000${resource}`;
		let list = this.lists.get(key);
		if (!list) {
			list = new ChronologicalList();
			this.lists.set(key, list);
		}
		return list;
	}

	add(tx: Transaction): void {
		this.index(tx);
		this.listFor(tx.clientId, tx.resource).insert(tx);
	}

	addMany(clientId: string, resource: Resource, txs: Transaction[]): void {
		for (const tx of txs) this.index(tx);
		this.listFor(clientId, resource).insertMany(txs);
	}

	private index(tx: Transaction): void {
		this.byReference.set(tx.reference, tx);
		this.byUniqueId.set(tx.uniqueId, tx);
		if (tx.seq >= this.nextSeq) this.nextSeq = tx.seq + 1;
	}

	byRef(reference: string): Transaction | undefined {
		return this.byReference.get(reference);
	}

	byRefOrUniqueId(id: string): Transaction | undefined {
		return this.byReference.get(id) ?? this.byUniqueId.get(id);
	}

	all(clientId: string, resource: Resource): readonly Transaction[] {
		return this.listFor(clientId, resource).items;
	}

	get size(): number {
		return this.byReference.size;
	}

	everything(): Transaction[] {
		return [...this.lists.values()].flatMap((list) => list.items);
	}

	count(clientId: string, resource: Resource): number {
		return this.listFor(clientId, resource).items.length;
	}

	list(clientId: string, resource: Resource, query: ListQuery): { items: Transaction[]; total: number } {
		const list = this.listFor(clientId, resource);
		const from = query.startMs === undefined ? 0 : list.lowerBound(query.startMs);
		const to = query.endMs === undefined ? list.items.length : list.upperBound(query.endMs);
		const offset = (query.page - 1) * query.limit;
		if (to <= from) return { items: [], total: 0 };
		if (query.ties) return this.listWithTiesReordered(list.items.slice(from, to), query, query.ties, offset);
		if (!query.status && !query.channel) {
			const items: Transaction[] = [];
			for (let index = to - 1 - offset; index >= from && items.length < query.limit; index--) items.push(list.items[index]);
			return { items, total: to - from };
		}
		const items: Transaction[] = [];
		let total = 0;
		for (let index = to - 1; index >= from; index--) {
			const tx = list.items[index];
			if (query.status && tx.status !== query.status) continue;
			if (query.channel && tx.channel !== query.channel) continue;
			if (total >= offset && items.length < query.limit) items.push(tx);
			total++;
		}
		return { items, total };
	}

	private listWithTiesReordered(window: Transaction[], query: ListQuery, ties: TieOrder, offset: number): { items: Transaction[]; total: number } {
		const matching = window.filter((tx) => (!query.status || tx.status === query.status) && (!query.channel || tx.channel === query.channel));
		const random = 'shuffleSeed' in ties ? seededRandom(ties.shuffleSeed) : null;
		const newestFirst: Transaction[] = [];
		for (let end = matching.length; end > 0; ) {
			let start = end - 1;
			while (start > 0 && matching[start - 1].createdAt === matching[end - 1].createdAt) start--;
			const group = matching.slice(start, end);
			if (random) {
				for (let index = group.length - 1; index > 0; index--) {
					const other = Math.floor(random() * (index + 1));
					[group[index], group[other]] = [group[other], group[index]];
				}
			}
			newestFirst.push(...group);
			end = start;
		}
		return { items: newestFirst.slice(offset, offset + query.limit), total: matching.length };
	}
}

export interface IdempotencyRecord {
	/** SHA-256 of the raw body bytes. */
	rawFingerprint: string;
	/** SHA-256 of the body's fields (key order ignored, PIN decrypted); absent for a body that is not a JSON object. */
	semanticFingerprint?: string;
	status: number;
	body: string;
	reference: string;
}

/** Bounded LRU of committed creates, keyed per client so two clients may reuse a key. */
export class IdempotencyStore {
	private readonly records = new Map<string, IdempotencyRecord>();

	constructor(private readonly capacity: number) {}

	private static key(clientId: string, idempotencyKey: string): string {
		return `${clientId}\u0000${idempotencyKey}`;
	}

	get(clientId: string, idempotencyKey: string): IdempotencyRecord | undefined {
		const key = IdempotencyStore.key(clientId, idempotencyKey);
		const record = this.records.get(key);
		if (record) {
			this.records.delete(key);
			this.records.set(key, record);
		}
		return record;
	}

	put(clientId: string, idempotencyKey: string, record: IdempotencyRecord): void {
		setNewest(this.records, IdempotencyStore.key(clientId, idempotencyKey), record, this.capacity);
	}

	get size(): number {
		return this.records.size;
	}

	snapshot(): Array<[string, IdempotencyRecord]> {
		return [...this.records];
	}

	/** State files written before the raw comparison kept one `fingerprint`, by fields: it stands as the semantic one. */
	restore(entries: Array<[string, IdempotencyRecord & { fingerprint?: string }]>): void {
		for (const [key, { fingerprint, ...record }] of entries) {
			this.records.set(key, { ...record, rawFingerprint: record.rawFingerprint ?? '', semanticFingerprint: record.semanticFingerprint ?? fingerprint });
		}
	}
}
