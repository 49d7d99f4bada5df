select `t1`.`id` as `c0`
from `articles` as `t1`
where exists (
  select 1
  from `articles_categories` as `t2`
  where `t2`.`articles_id` = `t1`.`id` and exists (
    select 1
    from `categories` as `t3`
    where `t3`.`id` = `t2`.`categories_id` and `t3`.`name` in (?, ?)))
order by `t1`.`id`
limit ?
-- values: ["news","tech",100]
