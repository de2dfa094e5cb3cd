import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type ListWindow, newWindow, windowStep } from './listWindow';
import type { MoneyApiContext, MoneyApiRequestOptions } from './request';

/**
 * A window of a list read whole, in one go (Get Many's Return All, Reconcile's period): walked
 * (listWindow.ts), then counted against the API's pagination.total. A transaction that entered the
 * window while it was walked (listed late, or created within the margin of its end) is found by
 * walking it again from its end, until as many are read as the API counts; after
 * MAX_WINDOW_WALKS walks that still fall short, the read fails, naming how many it could not read.
 */

export const MAX_WINDOW_WALKS = 3;

export interface WindowRead {
	/** Each transaction of the window once, newest first as read. */
	envelopes: IDataObject[];
	/** The API's pagination.total of the window when the read ended. */
	total: number;
	requests: number;
}

/** What the read's failure calls the transactions and the window: "payouts", "of the period". */
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
	let requests = 0;
	let window: ListWindow = newWindow(bounds.start, bounds.end);
	while (!window.finished) keep(await windowStep.call(this, route, qs, window, options));
	requests += window.requests;
	let total = window.total ?? 0;
	// One request is one answer of the API: what it listed is what it counted.
	let complete = window.requests === 1 && count() >= total;
	for (let walk = 2; !complete && walk <= MAX_WINDOW_WALKS; walk++) {
		const top = window.top === null ? bounds.end : String(window.top);
		window = newWindow(bounds.start, top, window.zoneless);
		do keep(await windowStep.call(this, route, qs, window, options));
		while (!window.finished && count() < (window.total ?? 0));
		requests += window.requests;
		total = window.total ?? 0;
		complete = count() >= total;
	}
	if (!complete) {
		const missing = total - count();
		throw new NodeOperationError(
			this.getNode(),
			`Read ${count()} of the ${total} ${words.transactions} the Money API counts ${words.window}: ${missing} could not be read`,
			{
				description: `The node walked the list ${MAX_WINDOW_WALKS} times and the API's count stayed higher than what it listed: transactions kept entering ${words.window} while the node read it, or the API lists transactions created at the same instant in another order on each request. Nothing was output, so no list is short without saying so. Run the node again; if it fails again, narrow Created After and Created Before.`,
				itemIndex: options.itemIndex,
			},
		);
	}
	return { envelopes: [...read.values(), ...unreferenced], total, requests };
}
