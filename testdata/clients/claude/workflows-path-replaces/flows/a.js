export const meta = {name: 'in-flows'}
