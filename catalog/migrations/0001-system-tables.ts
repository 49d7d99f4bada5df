import type { Knex } from 'knex';
import type { Migration } from './types.js';

/**
 * The svc_* system tables, as Directus 10 has them. Written with knex's schema builder
 * so the meaning is the same on SQLite, PostgreSQL and MySQL/MariaDB. Frozen once released:
 * later changes go into later migrations.
 */
export const systemTables: Migration = {
  version: '0001',
  name: 'system-tables',
  async up(db: Knex) {
    const now = db.fn.now();

    await db.schema.createTable('svc_roles', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 100).notNullable();
      t.string('icon', 30).notNullable().defaultTo('supervised_user_circle');
      t.text('description');
      t.text('ip_access');
      t.boolean('enforce_tfa').notNullable().defaultTo(false);
      t.boolean('admin_access').notNullable().defaultTo(false);
      t.boolean('app_access').notNullable().defaultTo(true);
    });

    await db.schema.createTable('svc_folders', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 255).notNullable();
      t.uuid('parent').references('id').inTable('svc_folders').onDelete('SET NULL');
    });

    await db.schema.createTable('svc_users', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('first_name', 50);
      t.string('last_name', 50);
      t.string('email', 128).unique();
      t.string('password', 255);
      t.string('location', 255);
      t.string('title', 50);
      t.text('description');
      t.json('tags');
      t.uuid('avatar');
      t.string('language', 255);
      t.string('tfa_secret', 255);
      t.string('status', 16).notNullable().defaultTo('active');
      t.uuid('role').references('id').inTable('svc_roles').onDelete('SET NULL');
      t.string('token', 255).unique();
      t.timestamp('last_access', { useTz: true });
      t.string('last_page', 255);
      t.string('provider', 128).notNullable().defaultTo('default');
      t.string('external_identifier', 255).unique();
      t.json('auth_data');
      t.boolean('email_notifications').defaultTo(true);
      t.string('appearance', 255);
      t.string('theme_dark', 255);
      t.string('theme_light', 255);
      t.json('theme_light_overrides');
      t.json('theme_dark_overrides');
    });

    await db.schema.createTable('svc_files', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('storage', 255).notNullable();
      t.string('filename_disk', 255);
      t.string('filename_download', 255).notNullable();
      t.string('title', 255);
      t.string('type', 255);
      t.uuid('folder').references('id').inTable('svc_folders').onDelete('SET NULL');
      t.uuid('uploaded_by').references('id').inTable('svc_users').onDelete('SET NULL');
      t.timestamp('created_on', { useTz: true }).notNullable().defaultTo(now);
      t.uuid('modified_by').references('id').inTable('svc_users').onDelete('SET NULL');
      t.timestamp('modified_on', { useTz: true }).notNullable().defaultTo(now);
      t.string('charset', 50);
      t.bigInteger('filesize');
      t.integer('width');
      t.integer('height');
      t.integer('duration');
      t.string('embed', 200);
      t.text('description');
      t.text('location');
      t.json('tags');
      t.json('metadata');
      t.integer('focal_point_x');
      t.integer('focal_point_y');
      t.string('tus_id', 64);
      t.json('tus_data');
      t.timestamp('uploaded_on', { useTz: true });
    });

    // svc_users.avatar → svc_files: added after svc_files exists (the two refer to each other).
    await db.schema.alterTable('svc_users', (t) => {
      t.foreign('avatar').references('id').inTable('svc_files').onDelete('SET NULL');
    });

    await db.schema.createTable('svc_collections', (t) => {
      t.string('collection', 64).primary().notNullable();
      t.string('icon', 30);
      t.text('note');
      t.string('display_template', 255);
      t.boolean('hidden').notNullable().defaultTo(false);
      t.boolean('singleton').notNullable().defaultTo(false);
      t.json('translations');
      t.string('archive_field', 64);
      t.boolean('archive_app_filter').notNullable().defaultTo(true);
      t.string('archive_value', 255);
      t.string('unarchive_value', 255);
      t.string('sort_field', 64);
      t.string('accountability', 255).defaultTo('all');
      t.string('color', 255);
      t.json('item_duplication_fields');
      t.integer('sort');
      t.string('group', 64);
      t.string('collapse', 255).notNullable().defaultTo('open');
      t.string('preview_url', 255);
      t.boolean('versioning').notNullable().defaultTo(false);
    });

    await db.schema.createTable('svc_fields', (t) => {
      t.increments('id').primary();
      t.string('collection', 64).notNullable();
      t.string('field', 64).notNullable();
      t.string('special', 255);
      t.string('interface', 64);
      t.json('options');
      t.string('display', 64);
      t.json('display_options');
      t.boolean('readonly').notNullable().defaultTo(false);
      t.boolean('hidden').notNullable().defaultTo(false);
      t.integer('sort');
      t.string('width', 30).defaultTo('full');
      t.json('translations');
      t.text('note');
      t.json('conditions');
      t.boolean('required').defaultTo(false);
      t.string('group', 64);
      t.json('validation');
      t.text('validation_message');
      t.unique(['collection', 'field']);
    });

    await db.schema.createTable('svc_relations', (t) => {
      t.increments('id').primary();
      t.string('many_collection', 64).notNullable();
      t.string('many_field', 64).notNullable();
      t.string('one_collection', 64);
      t.string('one_field', 64);
      t.string('one_collection_field', 64);
      t.text('one_allowed_collections');
      t.string('junction_field', 64);
      t.string('sort_field', 64);
      t.string('one_deselect_action', 255).notNullable().defaultTo('nullify');
      t.unique(['many_collection', 'many_field']);
    });

    await db.schema.createTable('svc_activity', (t) => {
      t.increments('id').primary();
      t.string('action', 45).notNullable();
      t.uuid('user');
      t.timestamp('timestamp', { useTz: true }).notNullable().defaultTo(now);
      t.string('ip', 50);
      t.text('user_agent');
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.text('comment');
      t.string('origin', 255);
      t.index(['collection', 'item']);
    });

    await db.schema.createTable('svc_revisions', (t) => {
      t.increments('id').primary();
      t.integer('activity').unsigned().notNullable().references('id').inTable('svc_activity').onDelete('CASCADE');
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.json('data');
      t.json('delta');
      t.integer('parent').unsigned().references('id').inTable('svc_revisions').onDelete('SET NULL');
      t.uuid('version');
      t.index(['collection', 'item']);
    });

    await db.schema.createTable('svc_comments', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.text('comment').notNullable();
      t.timestamp('date_created', { useTz: true }).defaultTo(now);
      t.timestamp('date_updated', { useTz: true }).defaultTo(now);
      t.uuid('user_created').references('id').inTable('svc_users').onDelete('SET NULL');
      t.uuid('user_updated').references('id').inTable('svc_users').onDelete('SET NULL');
    });

    await db.schema.createTable('svc_permissions', (t) => {
      t.increments('id').primary();
      t.uuid('role').references('id').inTable('svc_roles').onDelete('CASCADE');
      t.string('collection', 64).notNullable();
      t.string('action', 10).notNullable();
      t.json('permissions');
      t.json('validation');
      t.json('presets');
      t.text('fields');
      t.index(['role', 'collection', 'action']);
    });

    await db.schema.createTable('svc_presets', (t) => {
      t.increments('id').primary();
      t.string('bookmark', 255);
      t.uuid('user').references('id').inTable('svc_users').onDelete('CASCADE');
      t.uuid('role').references('id').inTable('svc_roles').onDelete('CASCADE');
      t.string('collection', 64);
      t.string('search', 100);
      t.string('layout', 100).defaultTo('tabular');
      t.json('layout_query');
      t.json('layout_options');
      t.integer('refresh_interval');
      t.json('filter');
      t.string('icon', 30).notNullable().defaultTo('bookmark');
      t.string('color', 255);
    });

    await db.schema.createTable('svc_settings', (t) => {
      t.increments('id').primary();
      t.string('project_name', 100).notNullable().defaultTo('Content Data Service');
      t.string('project_descriptor', 100);
      t.string('project_url', 255);
      t.string('project_color', 255).defaultTo('#6644FF');
      t.uuid('project_logo').references('id').inTable('svc_files').onDelete('SET NULL');
      t.uuid('public_foreground').references('id').inTable('svc_files').onDelete('SET NULL');
      t.uuid('public_background').references('id').inTable('svc_files').onDelete('SET NULL');
      t.uuid('public_favicon').references('id').inTable('svc_files').onDelete('SET NULL');
      t.text('public_note');
      t.string('default_language', 255).notNullable().defaultTo('en-US');
      t.string('default_appearance', 255).notNullable().defaultTo('auto');
      t.string('default_theme_light', 255);
      t.string('default_theme_dark', 255);
      t.json('theme_light_overrides');
      t.json('theme_dark_overrides');
      t.text('custom_css');
      t.integer('auth_login_attempts').defaultTo(25);
      t.string('auth_password_policy', 100);
      t.string('storage_asset_transform', 7).defaultTo('all');
      t.json('storage_asset_presets');
      t.uuid('storage_default_folder').references('id').inTable('svc_folders').onDelete('SET NULL');
      t.json('basemaps');
      t.string('mapbox_key', 255);
      t.json('module_bar');
      t.json('custom_aspect_ratios');
      t.string('report_error_url', 255);
      t.string('report_bug_url', 255);
      t.string('report_feature_url', 255);
      t.boolean('public_registration').notNullable().defaultTo(false);
      t.boolean('public_registration_verify_email').notNullable().defaultTo(true);
      t.uuid('public_registration_role').references('id').inTable('svc_roles').onDelete('SET NULL');
      t.json('public_registration_email_filter');
    });

    await db.schema.createTable('svc_sessions', (t) => {
      t.string('token', 64).primary().notNullable();
      t.uuid('user').references('id').inTable('svc_users').onDelete('CASCADE');
      t.timestamp('expires', { useTz: true }).notNullable();
      t.string('ip', 255);
      t.text('user_agent');
      t.uuid('share');
      t.string('origin', 255);
      t.string('next_token', 64);
    });
  },
};
