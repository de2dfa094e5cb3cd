import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type ListWindow, newWindow, windowStep } from './listWindow';
import type { MoneyApiContext, MoneyApiRequestOptions } from './request';

/**
 * A window of a list read whole, in one go (Get Many's Return All, Reconcile's period): walked
 * (listWindow.ts), then counted against the API's pagination.total. A walk reads every transaction
 * the window holds when it starts; one that entered while it walked (listed late, or created within
 * the margin of the window's end) is found by a second walk from the window's end, whose first page
 * also gives the count to meet. A list that still counts more than its pages show fails the read,
 * naming how many it could not read: no short list is returned as if whole.
 */

export interface WindowRead {
	/** Each transaction of the window once, newest first as read. */
	envelopes: IDataObject[];
	/** The API's pagination.total of the window when the read ended. */
	total: number;
	requests: number;
}

/** What the read's failure calls the transactions and the window: "payouts", "in the period". */
export interface WindowWords {
	transactions: string;
	window: string;
}

export async function readWindow(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	bounds: { start: string | null; end: string | null },
	words: WindowWords,
	options: MoneyApiRequestOptions = {},
): Promise<WindowRead> {
	const read = new Map<string, IDataObject>();
	const unreferenced: IDataObject[] = [];
	const keep = (envelopes: IDataObject[]) => {
		for (const envelope of envelopes) {
			if (typeof envelope.reference !== 'string') unreferenced.push(envelope);
			else if (!read.has(envelope.reference)) read.set(envelope.reference, envelope);
		}
	};
	const count = () => read.size + unreferenced.length;
	const walk = async (window: ListWindow) => {
		while (!window.finished) keep(await windowStep.call(this, route, qs, window, options));
	};
	const first = newWindow(bounds.start, bounds.end);
	await walk(first);
	// One request is one answer of the API: what it listed is what it counted.
	if (first.requests === 1 && count() >= (first.total ?? 0)) return { envelopes: [...read.values(), ...unreferenced], total: first.total ?? 0, requests: 1 };
	const again = newWindow(bounds.start, first.top === null ? bounds.end : String(first.top), first.zoneless);
	keep(await windowStep.call(this, route, qs, again, options));
	if (count() < (again.total ?? 0)) await walk(again);
	const total = again.total ?? 0;
	const requests = first.requests + again.requests;
	if (count() < total) {
		throw new NodeOperationError(
			this.getNode(),
			`Read ${count()} of the ${total} ${words.transactions} the Money API counts ${words.window}: ${total - count()} could not be read`,
			{
				description: `The node walked the list twice, the second time from its end, and the API's pagination.total stayed higher than what its pages listed. Nothing was output, so no list is short without saying so. Run the node again; if it fails again, the API's count and its pages disagree: narrow Created After and Created Before, or ask the API provider.`,
				itemIndex: options.itemIndex,
			},
		);
	}
	return { envelopes: [...read.values(), ...unreferenced], total, requests };
}
