// SchemaAccess is a permission concept: it lives in access/role-schema-access.ts. This re-export
// keeps imports written before the move working until their branches merge.
export * from '../access/role-schema-access.js';
