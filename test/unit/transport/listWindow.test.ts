import type { IDataObject } from 'n8n-workflow';

import { moneyApiPages } from '../../../nodes/transport/listWindow';
import { fakeContext, fast, type Reply } from './replies';

describe('moneyApiPages', () => {
	it('pages through a list until pagination.pages', async () => {
		const page = (n: number, pages: number): Reply => ({
			statusCode: 200,
			body: { success: true, data: [{ reference: `r${n}a` }, { reference: `r${n}b` }], pagination: { page: n, limit: 2, total: pages * 2, pages } },
		});
		const { context, calls } = fakeContext([page(1, 3), page(2, 3), page(3, 3)]);
		const all: IDataObject[] = [];
		for await (const listed of moneyApiPages.call(context, '/money/v1/charge', { status: 'PENDING' }, { retry: fast })) all.push(...listed.items);
		expect(all.map((entry: IDataObject) => entry.reference)).toEqual(['r1a', 'r1b', 'r2a', 'r2b', 'r3a', 'r3b']);
		expect(calls.map((call) => call.qs)).toEqual([
			{ status: 'PENDING', page: 1, limit: 100 },
			{ status: 'PENDING', page: 2, limit: 100 },
			{ status: 'PENDING', page: 3, limit: 100 },
		]);
	});
});
