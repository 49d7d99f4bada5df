select `t1`.`id` as `c0`
from `articles` as `t1`
where exists (
  select 1
  from `articles_sections` as `t2`
  where `t2`.`articles_id` = `t1`.`id` and exists (
    select 1
    from `headings` as `t3`
    where `t2`.`collection` = ? and `t3`.`id` = `t2`.`item` and `t3`.`title` = ?))
order by `t1`.`id`
limit ?
-- values: ["headings","H1",100]
