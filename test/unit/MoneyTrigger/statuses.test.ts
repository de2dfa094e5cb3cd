import { REMEMBERED_TRANSACTIONS, transactionHash, TransactionStatuses } from '../../../nodes/MoneyTrigger/memory/statuses';

const tx = (index: number) => transactionHash(`charge:CH-${index}`);

describe('TransactionStatuses: the last status of each recent transaction, compact', () => {
	it('judges a repeated status a duplicate and an older one stale; a status only moves forward', () => {
		const memory = new TransactionStatuses();
		expect(memory.judge(tx(1), 'PENDING')).toBe('new');
		memory.advance(tx(1), 'PENDING');
		expect(memory.judge(tx(1), 'PENDING')).toBe('duplicate');
		memory.advance(tx(1), 'COMPLETED');
		expect(memory.judge(tx(1), 'PENDING')).toBe('stale');
		expect(memory.judge(tx(1), 'COMPLETED')).toBe('duplicate');
		expect(memory.judge(tx(1), 'FAILED')).toBe('stale');
		expect(memory.judge(tx(1), 'REVERSED')).toBe('advance');
		memory.advance(tx(1), 'PENDING');
		expect(memory.judge(tx(1), 'COMPLETED')).toBe('duplicate');
	});

	it('takes a status outside the specification as one status after PENDING and before the final ones: a repeat of another such one, never followed by PENDING', () => {
		const memory = new TransactionStatuses();
		memory.advance(tx(1), 'PROCESSING');
		expect(memory.judge(tx(1), 'PROCESSING')).toBe('duplicate');
		expect(memory.judge(tx(1), 'AUTHORISED')).toBe('duplicate');
		expect(memory.judge(tx(1), 'COMPLETED')).toBe('advance');
		expect(memory.judge(tx(1), 'REVERSED')).toBe('advance');
		expect(memory.judge(tx(1), 'PENDING')).toBe('stale');
		memory.advance(tx(2), 'COMPLETED');
		expect(memory.judge(tx(2), 'SUCCESSFUL')).toBe('stale');
	});

	it('does not take PENDING after a status outside the five as a step forward', () => {
		const memory = new TransactionStatuses();
		memory.advance(tx(1), 'PENDING');
		memory.advance(tx(1), 'SUCCESSFUL');
		expect(memory.judge(tx(1), 'PENDING')).toBe('stale');
		expect(memory.judge(tx(1), 'SUCCESSFUL')).toBe('duplicate');
		expect(memory.stored).toBe(`${tx(1)}U`);
	});

	it('stores 11 bytes per transaction, least recently changed first, and forgets the least recently changed past its capacity', () => {
		const memory = new TransactionStatuses(3);
		memory.advance(tx(1), 'PENDING');
		memory.advance(tx(2), 'PENDING');
		memory.advance(tx(3), 'PENDING');
		expect(memory.stored).toBe(`${tx(1)}P${tx(2)}P${tx(3)}P`);
		memory.advance(tx(1), 'COMPLETED');
		expect(memory.stored).toBe(`${tx(2)}P${tx(3)}P${tx(1)}C`);
		memory.advance(tx(4), 'FAILED');
		expect(memory.stored).toBe(`${tx(3)}P${tx(1)}C${tx(4)}F`);
		expect(memory.judge(tx(2), 'PENDING')).toBe('new');
		expect(memory.size).toBe(3);
	});

	it('judges a status against the statuses in flight too (stale or a duplicate against any of them), and stores none of them', () => {
		const memory = new TransactionStatuses();
		memory.advance(tx(1), 'PENDING');
		expect(memory.judge(tx(1), 'PENDING', ['COMPLETED'])).toBe('duplicate');
		expect(memory.judge(tx(1), 'FAILED', ['COMPLETED'])).toBe('stale');
		expect(memory.judge(tx(1), 'REVERSED', ['COMPLETED'])).toBe('advance');
		expect(memory.judge(tx(2), 'PENDING', ['REVERSED'])).toBe('stale');
		expect(memory.judge(tx(2), 'COMPLETED', ['PENDING'])).toBe('advance');
		expect(memory.stored).toBe(`${tx(1)}P`);
	});

	it('merges a stored copy: unknown transactions as older, known ones only forward; its own copy changes nothing', () => {
		const other = new TransactionStatuses();
		other.advance(tx(1), 'COMPLETED');
		other.advance(tx(2), 'PENDING');
		other.advance(tx(5), 'PENDING');
		const memory = new TransactionStatuses(4);
		memory.advance(tx(2), 'FAILED');
		memory.advance(tx(3), 'PENDING');
		memory.advance(tx(5), 'COMPLETED');
		memory.merge(other.stored);
		expect(memory.judge(tx(1), 'COMPLETED')).toBe('duplicate');
		expect(memory.judge(tx(2), 'FAILED')).toBe('duplicate');
		expect(memory.judge(tx(5), 'COMPLETED')).toBe('duplicate');
		expect(memory.stored).toBe(`${tx(1)}C${tx(2)}F${tx(3)}P${tx(5)}C`);
		const copy = memory.stored;
		memory.merge(copy);
		expect(memory.stored).toBe(copy);
		memory.merge('not a memory');
		memory.merge({ events: '[]' });
		expect(memory.stored).toBe(copy);
	});

	it('finds a record by its place only: a hash that appears across two records is not taken for one', () => {
		const memory = new TransactionStatuses();
		// Records whose concatenation holds another record's hash at an offset.
		memory.advance('AAAAAAAAAA', 'PENDING');
		memory.advance('AAAAAAAAAP', 'PENDING');
		memory.advance('PAAAAAAAAA', 'PENDING');
		memory.advance('AAAAAAAAAP', 'COMPLETED');
		expect(memory.stored).toBe('AAAAAAAAAAPPAAAAAAAAAPAAAAAAAAAPC');
	});

	it('holds at least 50,000 transactions, 11 bytes each, forgetting the least recently changed 1,000 at a time', () => {
		const memory = new TransactionStatuses();
		for (let index = 0; index <= REMEMBERED_TRANSACTIONS + 1000; index++) memory.advance(tx(index), 'COMPLETED');
		expect(memory.size).toBe(REMEMBERED_TRANSACTIONS);
		expect(memory.stored.length).toBe(REMEMBERED_TRANSACTIONS * 11);
		expect(memory.judge(tx(1000), 'COMPLETED')).toBe('new');
		expect(memory.judge(tx(1001), 'COMPLETED')).toBe('duplicate');
		memory.advance(tx(0), 'COMPLETED');
		expect(memory.size).toBe(REMEMBERED_TRANSACTIONS + 1);
	});

	it('takes in a stored copy whole when it knows nothing yet (a restart), and one that holds a transaction twice by its map', () => {
		const full = new TransactionStatuses();
		for (let index = 0; index < 100; index++) full.advance(tx(index), 'PENDING');
		const restarted = new TransactionStatuses();
		restarted.merge(full.stored);
		expect(restarted.stored).toBe(full.stored);
		expect(restarted.judge(tx(42), 'PENDING')).toBe('duplicate');
		const twice = new TransactionStatuses();
		twice.merge(`${tx(1)}P${tx(2)}P${tx(1)}C`);
		expect(twice.size).toBe(2);
		expect(twice.stored.length).toBe(22);
		expect(twice.judge(tx(1), 'COMPLETED')).toBe('duplicate');
	});
});
