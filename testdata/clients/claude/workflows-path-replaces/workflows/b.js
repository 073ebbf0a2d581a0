export const meta = {name: 'in-default'}
