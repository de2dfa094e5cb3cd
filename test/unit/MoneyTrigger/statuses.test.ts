import { MOST_REMEMBERED, REMEMBERED_TRANSACTIONS, transactionHash, TransactionStatuses } from '../../../nodes/MoneyTrigger/memory/statuses';

const tx = (index: number) => transactionHash(`charge:CH-${index}`);

/** The transactions a memory holds, least recently changed first. */
function order(memory: TransactionStatuses): string[] {
	const { labels, records } = memory.stored;
	const length = 10 + Math.max(1, Math.ceil(labels.length / 6));
	const hashes: string[] = [];
	for (let at = 0; at < records.length; at += length) hashes.push(records.slice(at, at + 10));
	return hashes;
}

describe('TransactionStatuses: every status label of each recent transaction, compact', () => {
	it('runs each status once: a repeat is a duplicate whatever came after it, PENDING after another status is stale', () => {
		const memory = new TransactionStatuses();
		expect(memory.judge(tx(1), 'PENDING')).toBe('new');
		memory.advance(tx(1), 'PENDING');
		expect(memory.judge(tx(1), 'PENDING')).toBe('duplicate');
		memory.advance(tx(1), 'COMPLETED');
		expect(memory.judge(tx(1), 'PENDING')).toBe('duplicate');
		expect(memory.judge(tx(1), 'COMPLETED')).toBe('duplicate');
		expect(memory.judge(tx(1), 'REVERSED')).toBe('advance');
		memory.advance(tx(2), 'COMPLETED');
		expect(memory.judge(tx(2), 'PENDING')).toBe('stale');
		memory.advance(tx(2), 'PENDING');
		expect(memory.labelsOf(tx(2))).toEqual(['COMPLETED']);
	});

	// Before, every label outside the five was one code: SUCCESSFUL after PROCESSING was a duplicate,
	// REFUNDED after COMPLETED stale, and both were answered 200 and lost.
	it('keeps each label as it came: PROCESSING, SUCCESSFUL and REFUNDED each run once; PENDING after them is stale', () => {
		const memory = new TransactionStatuses();
		for (const status of ['PROCESSING', 'SUCCESSFUL', 'REFUNDED']) {
			expect(memory.judge(tx(1), status)).not.toMatch(/duplicate|stale/);
			memory.advance(tx(1), status);
		}
		expect(memory.labelsOf(tx(1))).toEqual(['PROCESSING', 'SUCCESSFUL', 'REFUNDED']);
		expect(memory.judge(tx(1), 'SUCCESSFUL')).toBe('duplicate');
		expect(memory.judge(tx(1), 'PROCESSING')).toBe('duplicate');
		expect(memory.judge(tx(1), 'PENDING')).toBe('stale');
		memory.advance(tx(2), 'COMPLETED');
		expect(memory.judge(tx(2), 'REFUNDED')).toBe('advance');
		memory.advance(tx(3), 'REVERSED');
		expect(memory.judge(tx(3), 'COMPLETED')).toBe('advance');
		memory.advance(tx(3), 'COMPLETED');
		expect(memory.judge(tx(3), 'REVERSED')).toBe('duplicate');
	});

	it('stores 11 bytes per transaction for up to six labels, least recently changed first, and one character more per six labels beyond', () => {
		const memory = new TransactionStatuses(3);
		memory.advance(tx(1), 'PENDING');
		memory.advance(tx(2), 'PENDING');
		memory.advance(tx(3), 'PENDING');
		expect(memory.stored).toEqual({ labels: ['PENDING'], records: `${tx(1)}B${tx(2)}B${tx(3)}B` });
		memory.advance(tx(1), 'COMPLETED');
		expect(memory.stored.records).toBe(`${tx(2)}B${tx(3)}B${tx(1)}D`);
		memory.advance(tx(4), 'FAILED');
		expect(memory.stored.records).toBe(`${tx(3)}B${tx(1)}D${tx(4)}E`);
		expect(memory.judge(tx(2), 'PENDING')).toBe('new');
		expect(memory.size).toBe(3);
		for (const status of ['CANCELLED', 'REVERSED', 'PROCESSING', 'REFUNDED']) memory.advance(tx(4), status);
		expect(memory.stored.labels).toEqual(['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED', 'PROCESSING', 'REFUNDED']);
		expect(memory.stored.records.length).toBe(3 * 12);
		expect(memory.labelsOf(tx(1))).toEqual(['PENDING', 'COMPLETED']);
		expect(memory.labelsOf(tx(4))).toEqual(['FAILED', 'CANCELLED', 'REVERSED', 'PROCESSING', 'REFUNDED']);
	});

	it('judges a status against the statuses in flight too, and stores none of them', () => {
		const memory = new TransactionStatuses();
		memory.advance(tx(1), 'PENDING');
		expect(memory.judge(tx(1), 'COMPLETED', ['COMPLETED'])).toBe('duplicate');
		expect(memory.judge(tx(1), 'PENDING', ['COMPLETED'])).toBe('duplicate');
		expect(memory.judge(tx(1), 'FAILED', ['COMPLETED'])).toBe('advance');
		expect(memory.judge(tx(2), 'PENDING', ['REVERSED'])).toBe('stale');
		expect(memory.judge(tx(2), 'COMPLETED', ['PENDING'])).toBe('advance');
		expect(memory.stored.records).toBe(`${tx(1)}B`);
	});

	it('takes in a stored copy: the labels of both; its own copy, or anything else, changes nothing', () => {
		const other = new TransactionStatuses();
		other.advance(tx(1), 'COMPLETED');
		other.advance(tx(2), 'PENDING');
		other.advance(tx(5), 'SUCCESSFUL');
		const memory = new TransactionStatuses(4);
		memory.advance(tx(2), 'FAILED');
		memory.advance(tx(3), 'PENDING');
		memory.advance(tx(5), 'PROCESSING');
		memory.merge(JSON.parse(JSON.stringify(other.stored)));
		expect([tx(1), tx(2), tx(3), tx(5)].map((hash) => memory.labelsOf(hash))).toEqual([['COMPLETED'], ['FAILED', 'PENDING'], ['PENDING'], ['PROCESSING', 'SUCCESSFUL']]);
		expect(memory.judge(tx(5), 'SUCCESSFUL')).toBe('duplicate');
		const copy = memory.stored;
		memory.merge(JSON.parse(JSON.stringify(copy)));
		expect(memory.stored).toEqual(copy);
		for (const junk of ['not a memory', { labels: ['PENDING'], records: 'short' }, { labels: ['A', 'A'], records: '' }, { records: '' }]) memory.merge(junk);
		expect(memory.stored).toEqual(copy);
	});

	// Before, what the copy held and the memory did not counted as older: with 10 places, the two
	// transactions another process had just changed were the ones forgotten, and the 2 oldest kept.
	it('keeps the most recently changed when it takes in another process\'s copy (10 places): what that process changed since the moment both saw goes after that moment', () => {
		const first = new TransactionStatuses(10);
		for (let index = 1; index <= 10; index++) first.advance(tx(index), 'COMPLETED');
		const second = new TransactionStatuses(10);
		second.merge(first.stored);
		second.advance(tx(11), 'COMPLETED');
		second.advance(tx(12), 'COMPLETED');
		first.advance(tx(13), 'COMPLETED');
		first.merge(second.stored);
		expect(order(first)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(tx));
		// And the other way round: the second process takes in the first's copy.
		second.merge(first.stored);
		expect(order(second)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(tx));
	});

	it('places a transaction the copy knows more of after the last moment both saw before it, or after its own place if later', () => {
		const first = new TransactionStatuses(6);
		for (let index = 1; index <= 6; index++) first.advance(tx(index), 'PENDING');
		const second = new TransactionStatuses(6);
		second.merge(first.stored);
		second.advance(tx(1), 'COMPLETED');
		first.advance(tx(7), 'PENDING');
		first.advance(tx(6), 'FAILED');
		first.merge(second.stored);
		// tx 1 changed in the second process after tx 6 as both saw it PENDING (first moved it since): after tx 5, the last moment both saw.
		expect(order(first)).toEqual([2, 3, 4, 5, 1, 7, 6].map(tx).slice(-6));
		expect(first.labelsOf(tx(1))).toEqual(['PENDING', 'COMPLETED']);
	});

	it('holds at least 50,000 transactions, 11 bytes each, forgetting the least recently changed 1,000 at a time', () => {
		const memory = new TransactionStatuses();
		for (let index = 0; index <= REMEMBERED_TRANSACTIONS + 1000; index++) memory.advance(tx(index), 'COMPLETED');
		expect(memory.size).toBe(REMEMBERED_TRANSACTIONS);
		expect(memory.stored.records.length).toBe(REMEMBERED_TRANSACTIONS * 11);
		expect(memory.judge(tx(1000), 'COMPLETED')).toBe('new');
		expect(memory.judge(tx(1001), 'COMPLETED')).toBe('duplicate');
		memory.advance(tx(0), 'COMPLETED');
		expect(memory.size).toBe(REMEMBERED_TRANSACTIONS + 1);
	});

	it('holds at most 51,000: a copy of that many is taken in whole, one past it is cut to the capacity like its own records', () => {
		expect(MOST_REMEMBERED).toBe(51_000);
		const copy = (count: number) => {
			const full = new TransactionStatuses(count);
			for (let index = 0; index < count; index++) full.advance(tx(index), 'COMPLETED');
			return full.stored;
		};
		const largest = new TransactionStatuses(100);
		largest.merge(copy(102));
		expect(largest.size).toBe(102);
		const past = new TransactionStatuses(100);
		past.merge(copy(103));
		expect({ size: past.size, oldest: order(past)[0] }).toEqual({ size: 100, oldest: tx(3) });
	});

	it('takes in a stored copy whole when it knows nothing yet (a restart), also one whose labels are in another order, and one that holds a transaction twice', () => {
		const full = new TransactionStatuses();
		for (let index = 0; index < 100; index++) full.advance(tx(index), index % 2 ? 'PENDING' : 'REFUNDED');
		const restarted = new TransactionStatuses();
		restarted.merge(full.stored);
		expect(restarted.stored).toEqual(full.stored);
		expect(restarted.judge(tx(42), 'REFUNDED')).toBe('duplicate');
		const other = new TransactionStatuses();
		other.advance(tx(1), 'COMPLETED');
		other.merge(full.stored);
		expect(other.labelsOf(tx(42))).toEqual(['REFUNDED']);
		expect(other.labelsOf(tx(43))).toEqual(['PENDING']);
		const twice = new TransactionStatuses();
		twice.merge({ labels: ['PENDING', 'COMPLETED'], records: `${tx(1)}B${tx(2)}B${tx(1)}C` });
		expect(twice.size).toBe(2);
		expect(twice.stored.records).toBe(`${tx(2)}B${tx(1)}D`);
	});

	it('finds a record by its place only: a hash that appears across two records is not taken for one', () => {
		const memory = new TransactionStatuses();
		// Records whose concatenation holds another record's hash at an offset.
		memory.advance('AAAAAAAAAA', 'PENDING');
		memory.advance('AAAAAAAAAB', 'PENDING');
		memory.advance('BAAAAAAAAA', 'PENDING');
		memory.advance('AAAAAAAAAB', 'COMPLETED');
		expect(memory.stored.records).toBe('AAAAAAAAAABBAAAAAAAAABAAAAAAAAABD');
	});
});
