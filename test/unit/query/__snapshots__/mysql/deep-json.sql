select (
  select coalesce(json_arrayagg(json_array((
          select json_array(`t3`.`name`) as `v`
          from `categories` as `t3`
          where `t3`.`id` = `t2`.`categories_id` and `t3`.`name` = ?))
      order by `t2`.`id`
      limit ?), json_array())
  from `articles_categories` as `t2`
  where `t2`.`articles_id` = `t1`.`id`) as `c0`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: ["news",5,100]
