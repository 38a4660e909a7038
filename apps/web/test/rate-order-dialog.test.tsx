// @vitest-environment jsdom
import type { Purchase } from '@mi/contracts/orders';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { RateOrderDialog } from '../src/features/orders/components/rate-order-dialog';
import { ratingEditable } from '../src/features/orders/components/purchased-services-page';
import { answer, stubFetch } from './network';

function purchase(over: Partial<Purchase> = {}): Purchase {
  return {
    id: '6f1c9e1e-2f7a-4a49-9f7e-0c7d1b0e5a11',
    createdAt: '2026-03-01T10:00:00.000Z',
    cost: 189.99,
    orderStatus: 'completed',
    service: { id: 's1', name: 'Expert Review', scope: 'expert_review', type: 'Expert' },
    provider: { id: 'p1', name: 'Dr Meredith Grey', demo: false },
    rating: null,
    studyId: 'st1',
    paidAt: '2026-03-01T10:00:00.000Z',
    card: { brand: 'visa', last4: '4242' },
    paymentIntentId: 'pi_1',
    refundedAmount: null,
    refundedAt: null,
    automatedReportAt: null,
    ...over,
  };
}

function renderWithQuery(ui: ReactElement) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

const fetchMock = stubFetch();

describe('Rate this order', () => {
  it('offers 1 to 5 stars as radio buttons and asks for a choice before saving', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    renderWithQuery(<RateOrderDialog order={purchase()} onClose={onClose} />);

    const dialog = screen.getByRole('dialog', { name: 'Rate this order' });
    expect(dialog).toBeTruthy();
    const group = screen.getByRole('group', { name: 'Your rating' });
    const radios = screen.getAllByRole('radio');
    expect(radios.map((r) => r.getAttribute('value'))).toEqual(['1', '2', '3', '4', '5']);
    expect(screen.getByRole('radio', { name: '1 star' })).toBeTruthy();
    expect(screen.getByRole('radio', { name: '5 stars' })).toBeTruthy();
    expect(group).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Save rating' }));
    expect(await screen.findByText('Choose from 1 to 5 stars')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('refuses a comment over 1000 characters', async () => {
    const user = userEvent.setup();
    renderWithQuery(<RateOrderDialog order={purchase()} onClose={vi.fn()} />);
    await user.click(screen.getByRole('radio', { name: '4 stars' }));
    const comment = screen.getByLabelText('Comment (optional)');
    await user.click(comment);
    await user.paste('x'.repeat(1001));
    expect(screen.getByText(/1001\/1000 characters/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save rating' }));
    expect(await screen.findByText('At most 1000 characters')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('saves the stars and the trimmed comment with PUT /api/orders/{id}/rating, then closes', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    const order = purchase();
    fetchMock.mockResolvedValueOnce(
      answer(200, {
        orderId: order.id,
        stars: 4,
        comment: 'Clear report',
        editableUntil: '2026-04-01T00:00:00Z',
      }),
    );
    renderWithQuery(<RateOrderDialog order={order} onClose={onClose} />);
    await user.click(screen.getByRole('radio', { name: '4 stars' }));
    expect((screen.getByRole('radio', { name: '4 stars' }) as HTMLInputElement).checked).toBe(true);
    await user.type(screen.getByLabelText('Comment (optional)'), '  Clear report  ');
    await user.click(screen.getByRole('button', { name: 'Save rating' }));

    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`/api/orders/${order.id}/rating`);
    expect(init?.method).toBe('PUT');
    expect(JSON.parse(String(init?.body))).toEqual({ stars: 4, comment: 'Clear report' });
  });

  it('sends no comment when the box is left empty', async () => {
    const user = userEvent.setup();
    const order = purchase();
    fetchMock.mockResolvedValueOnce(
      answer(200, { orderId: order.id, stars: 5, comment: null, editableUntil: '2026-04-01T00:00:00Z' }),
    );
    const onClose = vi.fn();
    renderWithQuery(<RateOrderDialog order={order} onClose={onClose} />);
    await user.click(screen.getByRole('radio', { name: '5 stars' }));
    await user.click(screen.getByRole('button', { name: 'Save rating' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({ stars: 5 });
  });

  it('starts from the rating already given, and shows the server refusal', async () => {
    const user = userEvent.setup();
    const order = purchase({
      rating: { stars: 2, comment: 'Slow', editableUntil: '2026-03-31T10:00:00.000Z' },
    });
    fetchMock.mockResolvedValueOnce(
      answer(409, { error: 'Ratings can be changed for 30 days.', code: 'CONFLICT' }),
    );
    const onClose = vi.fn();
    renderWithQuery(<RateOrderDialog order={order} onClose={onClose} />);
    expect((screen.getByRole('radio', { name: '2 stars' }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Comment (optional)') as HTMLTextAreaElement).value).toBe('Slow');
    await user.click(screen.getByRole('radio', { name: '3 stars' }));
    await user.click(screen.getByRole('button', { name: 'Save rating' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Ratings can be changed for 30 days.');
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('Edit rating', () => {
  it('is offered only until the rating stops being editable', () => {
    const now = Date.parse('2026-03-15T00:00:00Z');
    const given = (editableUntil: string) => purchase({ rating: { stars: 4, comment: null, editableUntil } });
    expect(ratingEditable(given('2026-03-31T10:00:00Z'), now)).toBe(true);
    expect(ratingEditable(given('2026-03-01T10:00:00Z'), now)).toBe(false);
    expect(ratingEditable(purchase(), now)).toBe(false);
  });
});
