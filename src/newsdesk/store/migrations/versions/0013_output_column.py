"""One name for the output a row is about: checks.subject, failed_drafts.kind and llm_usage.stage
-> `output` in all three (analysis | weekly | episode | translation; a model call may also be the
clusterer's `arbitrate`). `subject_id` keeps saying which one (12:zh, 2025-W09, an episode key).

`stage` is a pipeline stage everywhere else (stage_runs, tasks: `write` makes analyses), `kind` is
qualified by its table in five others, and `subject` said nothing the others did not. The index
and the unique constraint over the renamed columns take the new name too. Every row is kept.

Revision ID: 0013
Revises: 0012
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # RENAME COLUMN works in place on PostgreSQL and SQLite >= 3.25: no table copy, indexes follow.
    op.alter_column("checks", "subject", new_column_name="output")
    op.alter_column("llm_usage", "stage", new_column_name="output")
    op.alter_column("failed_drafts", "kind", new_column_name="output")
    op.drop_index("ix_checks_subject", table_name="checks")
    op.create_index("ix_checks_output", "checks", ["output", "subject_id"])
    # SQLite cannot rename a constraint: batch mode copies the table there (it is small: one row a
    # failed part) and alters it in place on PostgreSQL.
    with op.batch_alter_table("failed_drafts") as batch:
        batch.drop_constraint("uq_failed_drafts_kind_subject_material", type_="unique")
        batch.create_unique_constraint(
            "uq_failed_drafts_output_subject_material", ["output", "subject_id", "material_key"]
        )


def downgrade() -> None:
    op.alter_column("failed_drafts", "output", new_column_name="kind")
    with op.batch_alter_table("failed_drafts") as batch:
        batch.drop_constraint("uq_failed_drafts_output_subject_material", type_="unique")
        batch.create_unique_constraint("uq_failed_drafts_kind_subject_material", ["kind", "subject_id", "material_key"])
    op.drop_index("ix_checks_output", table_name="checks")
    op.alter_column("llm_usage", "output", new_column_name="stage")
    op.alter_column("checks", "output", new_column_name="subject")
    op.create_index("ix_checks_subject", "checks", ["subject", "subject_id"])
