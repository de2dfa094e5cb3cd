import type { IDataObject } from 'n8n-workflow';

import { observe } from '../../../nodes/MoneyPollTrigger/polling/observe';
import type { PollSettings } from '../../../nodes/MoneyPollTrigger/polling/settings';
import type { PollState } from '../../../nodes/MoneyPollTrigger/polling/state';

/** The status rule of docs/decisions.md D2 as the Poll Trigger applies it to what it reads. */

const settings: PollSettings = {
	resources: ['charge', 'payout'],
	filters: { resources: ['charge', 'payout'], statuses: [], channels: [] },
	overlapMs: 0,
	maxPages: 10,
	maxChecks: 50,
	maxWatched: 5000,
};

function freshState(): PollState {
	return { cursors: {}, floors: {}, windows: {}, recent: {}, zonelessTimes: false, watch: [], statuses: {}, referenceOrder: [] };
}

const envelope = (reference: string, label: string): IDataObject => ({ reference, type: 'payout', status: { code: 9, label }, created_at: '2026-01-01T00:00:00Z' });

/** The statuses each read emits, in order. */
function emitted(reads: Array<[string, string]>): string[] {
	const state = freshState();
	return reads.flatMap(([reference, label]) => {
		const item = observe(state, settings, 'payout', envelope(reference, label));
		return item ? [`${reference}:${item.status}`] : [];
	});
}

describe('Money Poll Trigger: each status a transaction is read at is emitted once', () => {
	// Before, every label outside the five was one status: SUCCESSFUL after PROCESSING and REFUNDED
	// after COMPLETED were never emitted.
	it('emits PROCESSING, SUCCESSFUL and REFUNDED, and REFUNDED after COMPLETED; not a PENDING read after them', () => {
		expect(
			emitted([
				['PO-1', 'PROCESSING'],
				['PO-1', 'SUCCESSFUL'],
				['PO-1', 'REFUNDED'],
				['PO-1', 'PENDING'],
				['PO-2', 'COMPLETED'],
				['PO-2', 'REFUNDED'],
			]),
		).toEqual(['PO-1:PROCESSING', 'PO-1:SUCCESSFUL', 'PO-1:REFUNDED', 'PO-2:COMPLETED', 'PO-2:REFUNDED']);
	});

	it('does not emit a status again when a lagging read shows an earlier one in between (COMPLETED, REVERSED, a read at COMPLETED, REVERSED)', () => {
		expect(
			emitted([
				['PO-3', 'COMPLETED'],
				['PO-3', 'REVERSED'],
				['PO-3', 'COMPLETED'],
				['PO-3', 'REVERSED'],
			]),
		).toEqual(['PO-3:COMPLETED', 'PO-3:REVERSED']);
	});
});

describe('Money Poll Trigger: a watched transaction whose statuses a saved state no longer holds', () => {
	// A state saved while watched statuses could be forgotten: the watch list names it, the memory does not.
	const forgotten = (): PollState => ({ ...freshState(), watch: ['payout:PO-9'] });

	it('is not emitted again at PENDING', () => {
		const state = forgotten();
		expect(observe(state, settings, 'payout', envelope('PO-9', 'PENDING'))).toBeNull();
		expect(state.statuses['payout:PO-9']).toEqual(['PENDING']);
		expect(state.watch).toEqual(['payout:PO-9']);
	});

	it('is emitted at its final status, once', () => {
		const state = forgotten();
		expect(observe(state, settings, 'payout', envelope('PO-9', 'PENDING'))).toBeNull();
		expect(observe(state, settings, 'payout', envelope('PO-9', 'COMPLETED'))?.status).toBe('COMPLETED');
		expect(observe(state, settings, 'payout', envelope('PO-9', 'COMPLETED'))).toBeNull();
		expect(state.watch).toEqual([]);
	});
});
